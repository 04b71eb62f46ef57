"""Write a file all at once: readers see the old bytes or the new, never a half-written file.

The new bytes go to a temporary file in the same folder, are flushed to disk,
and the temporary file is renamed over the target; the folder is synced so the
rename itself survives a crash.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable


def replace_file(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    before_rename: Callable[[], None] | None = None,
) -> None:
    """Replace (or create) ``path`` with ``data``, atomically and durably.

    ``mode`` sets the new file's permission bits (default 0o600). ``before_rename`` runs
    once the data is on disk and just before the rename; whatever it raises leaves the
    target untouched.
    """
    target = os.fspath(path)
    folder = os.path.dirname(target) or "."
    # Named before it exists, and created inside the ``try``: an exception that lands right
    # after its creation (a signal's, see ``run.interrupt``) still removes it, which it would
    # not inside ``tempfile.mkstemp``.
    temporary = os.path.join(folder, f".jaxcheck-{secrets.token_hex(8)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        if before_rename is not None:
            before_rename()
        os.replace(temporary, target)
    except BaseException as error:
        # Unless the name was another's file already: that one is not ours to remove.
        if not (isinstance(error, FileExistsError) and error.filename == temporary):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise
    _sync_folder(folder)


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (where the system allows opening a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
