"""Which file a notebook page was copied from, when the build copied it into its sources.

sphinx-collections copies a project's notebooks into the docs as the builder starts and
deletes them as the build ends; a copy step in conf.py does the same without the deletion.
The page Sphinx reads is then no file anyone edits: its findings should name the notebook it
was copied from, and ``jaxcheck update`` should rewrite that one.

The project is the git checkout that holds the source folder (:func:`.checkout.checkout_of`),
and a copy is told from a page by what git says of it, asked once per build:

- a page git tracks is its own source, whatever other file holds the same bytes;
- a page git does not track is a copy of the one tracked file that holds exactly its bytes
  (files of another size are never read); when several do, which one it came from is unknown;
- a page git ignores, which no tracked file matches, is a copy all the same (the project says
  it is made, not written) whose origin is unknown: the copy step changed it, or its origin
  changed since;
- a page git neither tracks nor ignores, which no tracked file matches, is a new page.

Outside a checkout, or where git cannot answer, every page is its own source. The question
is asked while the page is read: the copy may be gone once the build ends.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess
from dataclasses import dataclass

from .checkout import checkout_of


@dataclass(frozen=True)
class Origin:
    """Where a notebook page's cells are reported and rewritten."""

    path: str  # the file findings name and update writes: the page's own, or its origin
    copy: str = ""  # the page the build read, when ``path`` is the file it was copied from
    refusal: str = ""  # a copy whose origin is not one file: why update writes neither


class Origins:
    """The notebook pages of one build, each traced to the file it was copied from; git lists
    the files it tracks in the checkout holding the source folder ``srcdir`` once, when the
    first page is asked about."""

    def __init__(self, srcdir: str) -> None:
        self.checkout = checkout_of(srcdir)

    def of(self, path: str) -> Origin:
        """The origin of the page read from ``path``."""
        if self.checkout is None:
            return Origin(path)
        real = os.path.realpath(path)
        if os.path.commonpath([self.checkout, real]) != self.checkout:
            return Origin(path)
        by_size = self._tracked
        if by_size is None:
            return Origin(path)  # git cannot answer: nothing tells a copy
        try:
            size = os.path.getsize(real)
        except OSError:
            return Origin(path)
        candidates = by_size.get(size, [])
        if real in candidates:
            return Origin(path)  # tracked: the page is its own source
        same = _same_bytes(real, candidates)
        if len(same) == 1:
            return Origin(same[0], copy=path)
        shown = os.path.relpath(real, self.checkout)
        if len(same) > 1:
            listed = ", ".join(os.path.relpath(p, self.checkout) for p in same)
            return Origin(
                path,
                refusal=(
                    f"the page {shown} is a copy (git does not track it) and {len(same)} files "
                    f"git tracks hold its bytes: {listed}; update cannot tell which one it was "
                    "copied from and rewrites none. Rewrite that one by hand, or keep only one "
                    "of them"
                ),
            )
        if not self._ignored(real):
            return Origin(path)  # a new page, not yet added to git
        return Origin(
            path,
            refusal=(
                f"the page {shown} is a copy (git ignores it: the build makes it) and no file "
                "git tracks holds its bytes (the copy step changed them, or the notebook it "
                "copies changed since); update would write only the copy, which the next build "
                "replaces. Copy the notebook unchanged, or rewrite the one it came from by hand"
            ),
        )

    @functools.cached_property
    def _tracked(self) -> dict[int, list[str]] | None:
        """The files git tracks (their paths in the checkout), by size; None when git cannot
        say."""
        listed = self._git("ls-files", "-z", "--cached")
        if listed is None or listed.returncode != 0:
            return None
        assert self.checkout is not None
        by_size: dict[int, list[str]] = {}
        for name in filter(None, listed.stdout.split(b"\0")):
            path = os.path.join(self.checkout, os.fsdecode(name))
            try:
                found = os.stat(path)
            except OSError:
                continue  # deleted since it was added
            if stat.S_ISREG(found.st_mode):  # not a submodule's folder
                by_size.setdefault(found.st_size, []).append(path)
        return by_size

    def _ignored(self, real: str) -> bool:
        done = self._git("check-ignore", "-q", "--", real)
        return done is not None and done.returncode == 0

    def _git(self, *args: str) -> subprocess.CompletedProcess[bytes] | None:
        assert self.checkout is not None
        try:
            return subprocess.run(
                ["git", "-C", self.checkout, *args], capture_output=True, check=False
            )
        except OSError:  # no git on this machine
            return None


def _same_bytes(path: str, candidates: list[str]) -> list[str]:
    """Those of ``candidates`` (files of ``path``'s size) whose bytes are ``path``'s."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return []
    same = []
    for candidate in candidates:
        try:
            with open(candidate, "rb") as handle:
                if handle.read() == data:
                    same.append(candidate)
        except OSError:
            continue
    return same
