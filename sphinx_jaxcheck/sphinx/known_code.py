"""Block code this interpreter compiled before is not compiled again (see ``cache.syntax``).

A block asks :func:`compiled_before` while it is read; one whose code was compiled
here without error is noted on its document (so parallel readers' notes are merged
back), and once every document is read the notes are added to the record in the
cache folder. Without the cache, every block is compiled.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment

from ..cache.syntax import code_digest, known_to_compile, remember_compiled
from ..expect.grammar import python_code
from .checking.read_only import is_read_only
from .domain import domain_of
from .settings import cache_directory, settings_of
from .stages import ConfigInited, EnvUpdated

# Per document: digests of code compiled without error while it was read.
COMPILED = "compiled"
# On the config (``_`` names are not pickled): the cache folder, and the record as read.
_FOLDER = "_jaxcheck_known_code_folder"
_KNOWN = "_jaxcheck_known_code"


def setup_known_code(app: Sphinx) -> None:
    """Find the record once the config is read; keep what compiled once every document is
    read."""
    app.connect("config-inited", _find_record, priority=ConfigInited.KNOWN_CODE)
    app.connect("env-updated", _remember, priority=EnvUpdated.KNOWN_CODE)


def _find_record(app: Sphinx, config: Config) -> None:
    settings = settings_of(config)
    folder = cache_directory(app.confdir, settings) if settings.cache else None
    object.__setattr__(config, _FOLDER, folder)


def compiled_before(env: BuildEnvironment, body: Sequence[str]) -> tuple[bool, str]:
    """Whether this interpreter compiled the code of ``body`` without error before, and the
    digest to note if it compiles now (empty without the cache)."""
    directory = env.config.__dict__.get(_FOLDER)
    if not isinstance(directory, str):
        return False, ""
    known = env.config.__dict__.get(_KNOWN)
    if not isinstance(known, frozenset):
        known = known_to_compile(directory)
        object.__setattr__(env.config, _KNOWN, known)
    digest = code_digest(python_code(body))
    return digest in known, digest


def note_compiled(env: BuildEnvironment, docname: str, digest: str) -> None:
    """Note that the code with ``digest`` compiled without error while ``docname`` was read."""
    domain_of(env).per_document(COMPILED).setdefault(docname, []).append(digest)


def _remember(app: Sphinx, env: BuildEnvironment) -> list[str]:
    directory = app.config.__dict__.get(_FOLDER)
    notes = domain_of(env).per_document(COMPILED)
    if isinstance(directory, str) and notes and not is_read_only(app) and os.path.isdir(directory):
        remember_compiled(directory, (d for digests in notes.values() for d in digests))
    return []
