"""Small Python packages whose docstrings hold ``>>>`` examples in each way code wraps them.

``write_package`` writes one under a folder; the packages here need nothing
but the standard library (``JAX_PACKAGE`` needs jax, for the tests that run
its examples in workers).
"""

from __future__ import annotations

from pathlib import Path

# A decorator from another module (functools.wraps), a partial with an assigned __doc__, a
# class exported under another module's name, a property, module globals, a docstring made
# at import time, and names that one docstring binds and another uses.
PLAIN_PACKAGE = {
    "__init__.py": '''\
"""A package.

>>> 1 + 1
2
"""

from .exported import Moved
''',
    "deco.py": '''\
"""Decorators."""

import functools


def logged(fun):
    """Wrap ``fun``, keeping its name and docstring."""

    @functools.wraps(fun)
    def inner(*args, **kwargs):
        return fun(*args, **kwargs)

    return inner
''',
    "ops.py": '''\
"""Operations."""

import functools

from .deco import logged

SCALE = 3


def helper(x):
    return x * SCALE


@logged
def scaled(x):
    """Scale ``x``.

    >>> scaled(2)
    6
    >>> helper(1)
    3
    """
    return helper(x)


def adam(rate, nesterov=False):
    return (rate, nesterov)


nadam = functools.partial(adam, nesterov=True)
nadam.__doc__ = """NAdam.

    >>> nadam(0.5)
    (0.5, True)
"""


def made():
    return 0


made.__doc__ = "Made at import time.\\n\\n>>> made()\\n" + "0\\n"


class Box:
    """A box.

    >>> Box().value
    1
    """

    value = 1

    @property
    def doubled(self):
        """Twice the value.

        >>> Box().doubled
        2
        """
        return 2 * self.value


def defines():
    """Binds a name and ``_``.

    >>> y = 5
    >>> _ = 100
    """


def uses():
    """Uses them.

    >>> 3
    3
    >>> _ + 1
    4
    >>> y
    5
    """


def counts():
    """Counts in a loop ended by a bare prompt, which is a line of its example.

    >>> for i in range(2):
    ...     print(i)
    ...
    0
    1
    """
''',
    "exported.py": '''\
"""A class that says it lives elsewhere."""


class Moved:
    """Moved.

    >>> Moved().where()
    'here'
    """

    def where(self):
        return "here"


Moved.__module__ = "pkg"
''',
    "broken.py": "raise RuntimeError('cannot be imported')\n",
}


# The same ways with jax: jax.jit, custom_jvp, a functools.wraps decorator of another module
# (whose code lines are not the docstring's), module globals, and a docstring that uses ``_`` as
# the interpreter binds it and a name that only an earlier docstring bound (pytest: NameError).
JAX_PACKAGE = {
    "__init__.py": '"""Operations on arrays."""\n',
    "deco.py": '''\
"""A decorator that keeps what it wraps."""

import functools


def traced(fun):
    """Call ``fun`` as it is.

    Its code stands here, after some lines, so that a line of this file
    could be mistaken for one of the function it wraps.
    """

    @functools.wraps(fun)
    def inner(*args, **kwargs):
        return fun(*args, **kwargs)

    return inner
''',
    "ops.py": '''\
"""Array operations.

>>> shift(1)
11
"""

import functools

import jax
import jax.numpy as jnp

from .deco import traced

OFFSET = 10


def shift(x):
    return x + OFFSET


@jax.jit
def double(x):
    """Double ``x``.

    >>> double(jnp.arange(3))
    Array([0, 2, 4], dtype=int32)
    >>> shift(double(1))
    Array(12, dtype=int32, weak_type=True)
    """
    return 2 * x


@traced
def triple(x):
    """Triple ``x``.

    >>> triple(2)
    6
    >>> triple(undefined)
    6
    """
    return 3 * x


@jax.custom_jvp
def identity(x):
    """Return ``x``, with its own derivative.

    >>> identity(jnp.float32(2.0))
    Array(2., dtype=float32)
    >>> jax.grad(identity)(2.0)
    Array(1., dtype=float32, weak_type=True)
    """
    return x


@identity.defjvp
def _identity_jvp(primals, tangents):
    return primals[0], tangents[0]


def adam(rate, nesterov=False):
    return (rate, nesterov)


nadam = functools.partial(adam, nesterov=True)
nadam.__doc__ = """NAdam.

    >>> nadam(0.5)
    (0.5, True)
"""


def binds():
    """Binds names.

    >>> y = 5
    >>> _ = jnp.zeros(4)
    """


def uses():
    """Uses ``_`` as the interpreter binds it, and a name only ``binds`` bound.

    >>> jnp.arange(3)
    Array([0, 1, 2], dtype=int32)
    >>> _.shape
    (3,)
    >>> y
    5
    """
''',
}

# Shaped as dm-haiku and JAX ship their APIs: the objects are defined in ``pkg/_src/base.py``
# (indented by two spaces, as haiku's source) and re-exported by ``pkg/__init__.py``; some
# classes say they belong to ``pkg`` (JAX's ``set_module``), one with no methods at all.
REEXPORTED_PACKAGE = {
    "__init__.py": (
        "from pkg._src.base import Extended, Made, Module, Partial, assigned, with_rng\n"
    ),
    "_src/__init__.py": "",
    "_src/base.py": '''\
"""Base."""

import functools


def with_rng(key):
  """Returns ``key``.

  >>> from pkg import with_rng
  >>> with_rng(1)
  1
  >>> print("drift")
  stale

  Another group:

  >>> with_rng(2) + 1
  3
  """
  return key


def export(cls):
  # As JAX's set_module: the class says it belongs where it is exported.
  cls.__module__ = "pkg"
  return cls


@export
class Extended:
  """A class with no methods, exported under the package's name.

  >>> from pkg import Extended
  >>> Extended.__module__
  'pkg'
  """


@export
class Partial(functools.partial):
  """A partial whose only method is its __new__.

  >>> from pkg import Partial
  >>> Partial(int, "4")()
  4
  """

  def __new__(klass, func, *args):
    return super().__new__(klass, func, *args)


@export
class Made:
  pass


Made.__doc__ = "".join(["Made at import.", "\\n\\n>>> 1\\n1\\n"])


class Module:
  """Module, its examples indented as haiku's DeepRNN's (a block quote in the page).

      >>> from pkg import Module
      >>> Module().method()
      1

  Text after them.
  """

  def method(self):
    """Method.

    >>> from pkg import Module
    >>> Module().method()
    1
    """
    return 1

  @property
  def prop(self):
    """Prop.

    >>> from pkg import Module
    >>> Module().prop
    2
    """
    return 2


_SHARED = """Assigned.

  >>> from pkg import assigned
  >>> assigned()
  5
  """


def assigned():
  return 5


assigned.__doc__ = _SHARED
''',
}


def write_package(root: Path, name: str, files: dict[str, str]) -> Path:
    """Write package ``name`` (its files by name) under ``root``; return its folder."""
    folder = root / name
    for file, text in files.items():
        path = folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return folder


# A module whose docstrings share state as pytest runs them: one process for the module, its
# doctests in the order of their names, each in its own copy of the module's globals.
STATEFUL_PACKAGE = {
    "__init__.py": '"""Docstrings that depend on each other."""\n',
    "log.py": '''\
"""A log every docstring of this module writes to."""

ENTRIES: list[str] = []


def a_record(entry):
    """Record an entry.

    >>> a_record("first")
    >>> kept = "only here"
    >>> len(ENTRIES)
    1
    """
    ENTRIES.append(entry)


def b_entries():
    """The entries so far (an earlier docstring recorded one).

    >>> b_entries()
    ['first']
    >>> jnp.zeros(1).shape  # what the setup defined, in every docstring
    (1,)
    """
    return list(ENTRIES)


def c_namespace():
    """Names bound by another docstring's examples are not this one's.

    >>> "kept" in globals()
    False
    """
''',
}


# A package that shows another's function under its own name, as jax.numpy shows NumPy's.
SHOWING_PACKAGE = {"__init__.py": '"""Ours."""\n\nfrom lent import borrowed\n'}
LENT_PACKAGE = {
    "__init__.py": '''\
"""Another project's package."""


def borrowed():
    """Theirs, with an example that no longer holds.

    >>> borrowed()
    'old'
    """
    return "new"
''',
}
