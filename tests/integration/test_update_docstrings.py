"""``jaxcheck update`` on docstring examples, in a real checkout, judged by pytest.

Each test makes a small git repository (``git init``) holding a package and
the docs folder whose pages show the package's docstrings (autodoc), corrupts
expected outputs, and runs the real command line in a fresh process (real
Sphinx, real workers), under pytest's rules and under sphinx.ext.doctest's.
The oracle is ``pytest --doctest-modules`` on the same package: it fails
before the update and passes after it. Refusals are checked to name one
reason each, at the file and line to edit by hand, and never to advise
``--allow-outside``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import jaxcheck

REPO = Path(__file__).resolve().parents[2]
CONF = """\
import os, sys
sys.path.insert(0, os.path.abspath(".."))  # the checkout, where the package is
extensions = EXTENSIONS
exclude_patterns = ["_build"]
jaxcheck_doctests = "check"
"""
# How the docstrings come into the check: an autodoc page under either rules, or collected.
DIALECTS = {
    "pytest": ["sphinx.ext.autodoc", "sphinx_jaxcheck"],
    "sphinx.ext.doctest": ["sphinx.ext.autodoc", "sphinx.ext.doctest", "sphinx_jaxcheck"],
    "collected": ["sphinx_jaxcheck"],
}
# A module as its maintainers wrote it: docstrings of functions, a class, a method, the module.
ARITH = '''\
"""Small arithmetic.

>>> from pkg.arith import Grid, add, show
>>> add(2, 2)
4
"""


def add(x, y):
    """Add two numbers.

    >>> add(1, 2)
    3
    >>> [add(n, n) for n in range(4)]
    [0, 2, 4, 6]
    """
    return x + y


class Grid:
    """Rows of numbers.

    >>> for row in Grid(2, 3).rows():
    ...     print(row)
    [0, 1, 2]
    [3, 4, 5]
    """

    def __init__(self, height, width):
        self.height, self.width = height, width

    def rows(self):
        """The rows, as lists."""
        numbers = iter(range(self.height * self.width))
        return [[next(numbers) for _ in range(self.width)] for _ in range(self.height)]


def show(grid):
    r"""Print a grid, its numbers apart (a raw docstring holds backslashes as they are).

    >>> show(Grid(3, 2))
    0\\1
    2\\3
    4\\5
    """
    for row in grid.rows():
        print(*row, sep="\\\\")
'''
# (good, corrupted) texts of ARITH: five expected outputs.
CORRUPTIONS = (
    ("    3\n", "    30\n"),
    ("[0, 2, 4, 6]", "[0, 2, 4, 7]"),
    ("    [3, 4, 5]\n", "    [3, 4, 6]\n"),
    ("    2\\3\n", "    2\\9\n"),
    (">>> add(2, 2)\n4\n", ">>> add(2, 2)\n5\n"),
)


def git_checkout(root: Path) -> Path:
    """A real git repository at ``root`` (what update looks for: its ``.git``)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def project(
    root: Path, modules: list[str], files: dict[str, str], dialect: str = "collected"
) -> Path:
    """The package files (by path under ``root``) and ``root/docs``, which checks the
    docstrings of ``modules`` (``jaxcheck_doctest_modules``, or a page showing them with
    autodoc under ``dialect``'s rules); returns the docs folder."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    conf = CONF.replace("EXTENSIONS", repr(DIALECTS[dialect]))
    page = "API\n===\n\nThe docstrings.\n"
    if dialect == "collected":
        conf += f"jaxcheck_doctest_modules = {modules!r}\n"
    else:
        # The page imports what the examples use (docstrings that run in the page's namespace).
        imports = "".join(f">>> from {name} import *\n" for name in modules)
        shown = "".join(f".. automodule:: {name}\n   :members:\n\n" for name in modules)
        page = f"API\n===\n\n{imports}\n{shown}"
    (docs / "conf.py").write_text(conf, "utf-8")
    (docs / "index.rst").write_text(page, "utf-8")
    return docs


def env(*path: Path) -> dict[str, str]:
    """The environment of a command whose workers import the package from ``path``."""
    pythonpath = os.pathsep.join(str(p) for p in (*path, REPO))
    return {**os.environ, "PYTHONPATH": pythonpath, "JAX_PLATFORMS": "cpu", "NO_COLOR": "1"}


def update(docs: Path, *args: str, path: Path) -> subprocess.CompletedProcess[str]:
    return jaxcheck("update", docs, *args, cwd=docs, env=env(path))


def oracle(root: Path, target: str) -> subprocess.CompletedProcess[str]:
    """``pytest --doctest-modules`` on the package, as its CI runs it."""
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*pytest, "--doctest-modules", "--rootdir", str(root), target],
        cwd=root,
        capture_output=True,
        text=True,
        env=env(root),
        check=False,
    )


def guide_messages() -> list[set[str]]:
    """The messages the update page shows for docstrings, a set per ``text`` block."""
    text = (REPO / "demo_docs" / "guide" / "command-line.md").read_text("utf-8")
    section = text.split("### Docstring examples in Python files", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"^```text\n(.*?)\n```$", section, re.MULTILINE | re.DOTALL)
    return [set(block.splitlines()) for block in blocks]


def printed(stderr: str, home: Path) -> set[str]:
    """The refusals printed, with the test's folder shown as the guide shows it."""
    return {
        line.replace(str(home), "/home/me")
        for line in stderr.splitlines()
        if ": cannot update: " in line
    }


def refusals(stderr: str) -> dict[str, str]:
    """``FILE:LINE: cannot update: ...`` lines by ``FILE:LINE`` (the file's name only)."""
    found = {}
    for line in stderr.splitlines():
        match = re.match(r"(.+?):(\d+): cannot update: (.*)", line)
        if match:
            place = f"{Path(match.group(1)).name}:{match.group(2)}"
            assert place not in found, stderr
            found[place] = match.group(3)
    return found


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_update_restores_corrupted_docstring_outputs_byte_for_byte(
    tmp_path: Path, dialect: str
) -> None:
    root = git_checkout(tmp_path / "project")
    broken = ARITH
    for good, bad in CORRUPTIONS:
        assert broken.count(good) == 1, good
        broken = broken.replace(good, bad)
    # CRLF line endings and no last newline: kept as they are.
    original = ARITH.replace("\n", "\r\n").removesuffix("\r\n")
    docs = project(
        root,
        ["pkg.arith"],
        {
            "pkg/__init__.py": "",
            "pkg/arith.py": broken.replace("\n", "\r\n").removesuffix("\r\n"),
        },
        dialect,
    )
    arith = root / "pkg" / "arith.py"
    assert oracle(root, "pkg").returncode == 1

    dry = update(docs, "--dry-run", path=root)
    assert dry.returncode == 1, dry.stderr
    assert arith.read_bytes() != original.encode()  # nothing written
    assert "-    30\n+    3\n" in dry.stdout.replace("\r", "")
    assert "would rewrite 5 expectation(s) in 1 file(s)" in dry.stderr

    done = update(docs, path=root)
    assert done.returncode == 0, done.stderr
    assert "rewrote 5 expectation(s) in 1 file(s)" in done.stderr
    assert arith.read_bytes() == original.encode()
    judged = oracle(root, "pkg")
    assert judged.returncode == 0, judged.stdout
    assert "4 passed" in judged.stdout  # the module, add, Grid and show
    again = update(docs, path=root)
    assert again.returncode == 0, again.stderr
    assert "rewrote 0 expectation(s) in 0 file(s)" in again.stderr
    assert arith.read_bytes() == original.encode()


# Docstrings whose lines are not the file's, each corrupted on its output line.
REFUSED = {
    "escape.py": '''\
def tab():
    """A tab, written as an escape.

    >>> print(tab())
    a\\tb
    """
    return "a\\tc"
''',
    "backslash.py": '''\
def path():
    """A path that now prints a backslash.

    >>> print(path())
    a/b
    """
    return "a\\\\b"
''',
    "closing.py": '''\
def two():
    """Two.

    >>> two()
    3"""
    return 2
''',
}
# By the place each is reported at (the example's line), each naming the line to edit.
REASONS = {
    "escape.py:4": "line 5 holds the escape sequence '\\\\t', so the docstring's line is not",
    "backslash.py:4": "the new output line 'a\\\\b' holds a backslash, which the docstring",
    "closing.py:4": "the output ends on the line of the docstring's closing quotes (line 5)",
}


def test_each_docstring_update_cannot_write_is_refused_once_with_its_reason(
    tmp_path: Path,
) -> None:
    root = git_checkout(tmp_path / "project")
    files = {f"bad/{name}": text for name, text in REFUSED.items()}
    modules = [f"bad.{name.removesuffix('.py')}" for name in REFUSED]
    docs = project(root, modules, {"bad/__init__.py": "", **files}, "pytest")
    before = {name: (root / "bad" / name).read_bytes() for name in REFUSED}
    done = update(docs, path=root)
    assert done.returncode == 1
    found = refusals(done.stderr)
    assert sorted(found) == sorted(REASONS), done.stderr
    for place, reason in REASONS.items():
        assert reason in found[place], (place, found[place])
        assert "allow-outside" not in found[place]
    assert "rewrote 0 expectation(s) in 0 file(s)" in done.stderr
    assert {name: (root / "bad" / name).read_bytes() for name in REFUSED} == before
    assert printed(done.stderr, tmp_path) == guide_messages()[0]


PACKAGE = {
    "__init__.py": "",
    "two.py": 'def two():\n    """Two.\n\n    >>> two()\n    3\n    """\n    return 2\n',
}


def test_without_a_checkout_no_python_file_is_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "project"
    files = {f"pkg/{name}": text for name, text in PACKAGE.items()}
    docs = project(root, ["pkg.two"], files, "pytest")
    done = update(docs, path=root)
    assert done.returncode == 1
    (reason,) = refusals(done.stderr).values()
    assert "is in no version-control checkout (no .git in it or above it)" in reason
    assert (root / "pkg" / "two.py").read_text("utf-8") == PACKAGE["two.py"]
    assert printed(done.stderr, tmp_path) == guide_messages()[1]


# Docstrings that are no literal of their file (made while the module is imported), each
# corrupted on its output line (2 -> 3), collected as pytest --doctest-modules collects them.
MADE = {
    "percent.py": '''\
def two():
    return 2


two.__doc__ = """Two, by %s.

>>> two()
3
""" % "name"
''',
    "formatted.py": '''\
def two():
    return 2


two.__doc__ = """Two, by {}.

>>> two()
3
""".format("name")
''',
    "joined.py": '''\
def two():
    return 2


two.__doc__ = """Two.
""" + """
>>> two()
3
"""
''',
    "fstring.py": '''\
NAME = "name"


def two():
    return 2


two.__doc__ = f"""Two, by {NAME}.

>>> two()
3
"""
''',
    "made.py": """\
def two():
    return 2


two.__doc__ = "\\n".join(["Two.", "", ">>> two()", "3", ""])
""",
}
# Reported at the line of the function, each naming the line of the literal to edit.
MADE_REASONS = {
    "percent.py:1": "the docstring is formatted with `%` (line 5), so its text is not the file's:",
    "formatted.py:1": "the docstring is formatted with `.format()` (line 5), so its text is not",
    "joined.py:1": "the docstring is joined to another string with `+` (line 6), so its text",
    "fstring.py:4": "the docstring is an f-string (line 8), made when the module runs, so its",
    "made.py:1": "which is not found in a file (its text is not a string literal",
}


def test_a_docstring_made_while_the_module_is_imported_is_refused_naming_its_literal(
    tmp_path: Path,
) -> None:
    root = git_checkout(tmp_path / "project")
    files = {f"bad/{name}": text for name, text in MADE.items()}
    docs = project(root, ["bad"], {"bad/__init__.py": "", **files})
    before = {name: (root / "bad" / name).read_bytes() for name in MADE}
    done = update(docs, path=root)
    assert done.returncode == 1
    found = refusals(done.stderr)
    assert sorted(found) == sorted(MADE_REASONS), done.stderr
    for place, reason in MADE_REASONS.items():
        assert reason in found[place], (place, found[place])
        assert "allow-outside" not in found[place]
    assert {name: (root / "bad" / name).read_bytes() for name in MADE} == before
    assert printed(done.stderr, tmp_path) == guide_messages()[2]


def test_a_package_outside_the_checkout_or_installed_is_refused_once(tmp_path: Path) -> None:
    root = git_checkout(tmp_path / "project")
    docs = project(root, ["outpkg", "sitepkg"], {})
    outside = tmp_path / "elsewhere"
    installed = tmp_path / "venv" / "lib" / "site-packages"
    for folder, name in ((outside, "outpkg"), (installed, "sitepkg")):
        for file, text in PACKAGE.items():
            (folder / name).mkdir(parents=True, exist_ok=True)
            (folder / name / file).write_text(text, "utf-8")
    # --allow-outside widens where pages are written, never where Python files are.
    done = jaxcheck("update", docs, "--allow-outside", cwd=docs, env=env(outside, installed))
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if ": cannot update: " in line]
    assert len(lines) == 2, done.stderr
    (out,) = [line for line in lines if "outpkg" in line.split(":")[0]]
    (site,) = [line for line in lines if "sitepkg" in line.split(":")[0]]
    assert out.startswith(f"{outside / 'outpkg' / 'two.py'}:4: cannot update: ")
    assert f"is outside the project's checkout {root.resolve()}" in out
    assert site.startswith(f"{installed / 'sitepkg' / 'two.py'}:4: cannot update: ")
    assert "belongs to an installed package (it is under site-packages)" in site
    assert "allow-outside" not in done.stderr
    assert printed(done.stderr, tmp_path) == guide_messages()[3]
    for folder, name in ((outside, "outpkg"), (installed, "sitepkg")):
        assert (folder / name / "two.py").read_text("utf-8") == PACKAGE["two.py"]
