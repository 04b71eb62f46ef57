"""The one way tests make a Sphinx project and build it for real, and read back what the
build reported.

A project is either written from a dict of documents (``write_project``) or
copied from ``tests/roots/test-<name>`` (``copy_root``); ``build`` builds it
in this process as sphinx-build would. ``jaxcheck_here`` runs the command line in this process
too, ``jaxcheck`` and ``sphinx_build`` in a fresh one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from sphinx.testing.util import SphinxTestApp

ROOTS = Path(__file__).parent / "roots"
# sphinx-build as the tests of its exit status run it: an HTML build reading every page.
HTML = ("-q", "-E", "-b", "html")
WARNING = re.compile(
    # A message may span lines, but never into the next warning (Sphinx's own included).
    r"^(?P<path>\S+?):(?P<line>\d+): WARNING: "
    r"(?P<message>(?:(?!\n\S*:? ?WARNING: ).)*?) "
    r"\[jaxcheck\.(?P<subtype>[\w-]+)\]$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Reported:
    """One jaxcheck warning as the build printed it."""

    file: str
    line: int
    subtype: str
    message: str


@dataclass
class Build:
    """The result of one build."""

    status: int
    warnings: str
    log: str
    app: SphinxTestApp

    @property
    def reported(self) -> list[Reported]:
        """Every jaxcheck warning, in order."""
        plain = re.sub(r"\x1b\[[0-9;]*m", "", self.warnings)
        return [
            Reported(Path(m["path"]).name, int(m["line"]), m["subtype"], m["message"])
            for m in WARNING.finditer(plain)
        ]

    def subtypes(self) -> list[str]:
        """The subtypes of the jaxcheck warnings, in order."""
        return [r.subtype for r in self.reported]


def copy_root(name: str, tmp_path: Path, conf: str = "") -> Path:
    """A private copy of ``tests/roots/test-<name>`` to build and edit.

    Its conf.py is the one all roots share (``tests/roots/conf.py``), then ``conf``.
    """
    target = tmp_path / name
    shutil.copytree(ROOTS / f"test-{name}", target)
    (target / "conf.py").write_text((ROOTS / "conf.py").read_text("utf-8") + conf, encoding="utf-8")
    return target


def build(
    srcdir: Path, buildername: str = "html", *, fresh: bool = False, **overrides: Any
) -> Build:
    """Build ``srcdir`` in this process, as sphinx-build would."""
    status, warning = StringIO(), StringIO()
    parallel = overrides.pop("parallel", 0)
    # Warnings end with their type ([jaxcheck.drift]), which the tests read: Sphinx's default
    # from 8.0 on, set for the older releases.
    overrides.setdefault("show_warning_types", True)
    app = SphinxTestApp(
        buildername,
        srcdir=srcdir,
        freshenv=fresh,
        confoverrides=overrides,
        status=status,
        warning=warning,
        parallel=parallel,
    )
    try:
        app.build()
    finally:
        app.cleanup()
    return Build(app.statuscode, warning.getvalue(), status.getvalue(), app)


def write_project(root: Path, files: dict[str, str], conf: str = "") -> Path:
    """A small Sphinx project: conf.py plus the given documents."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_jaxcheck"]\n'
        'source_suffix = {".rst": "restructuredtext", ".md": "markdown"}\n'
        'exclude_patterns = ["_build"]\n'
        "jaxcheck_cache = False\n" + conf,
        encoding="utf-8",
    )
    docs = [name.rsplit(".", 1)[0] for name in files if name.endswith((".rst", ".md"))]
    if "index.rst" not in files and "index.md" not in files:
        toctree = "\n".join(f"   {doc}" for doc in docs)
        (root / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{toctree}\n", "utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def jaxcheck(
    *args: str | os.PathLike[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command line in a fresh process, as a user runs it: ``jaxcheck ARGS...``."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx_jaxcheck", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def jaxcheck_here(
    *args: str | os.PathLike[str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``jaxcheck ARGS...`` run by its ``main`` in this process, from ``cwd``: its exit status and
    what it printed, as :func:`jaxcheck` returns them, without the second or more a fresh
    interpreter spends importing Sphinx and the extensions of the project.

    For what the command does. What the process itself does (its environment, signals, the
    modules it imports, what its workers write to the terminal) is :func:`jaxcheck`'s to test.
    """
    from sphinx_jaxcheck import cli

    argv = [str(arg) for arg in args]
    out, err = StringIO(), StringIO()
    with (
        contextlib.chdir(cwd or os.getcwd()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            status = cli.main(argv)
        except SystemExit as stopped:  # argparse's usage errors, --help and --version
            if isinstance(stopped.code, str):
                print(stopped.code, file=sys.stderr)
            status = stopped.code if isinstance(stopped.code, int) else int(bool(stopped.code))
    return subprocess.CompletedProcess(["jaxcheck", *argv], status, out.getvalue(), err.getvalue())


def sphinx_build(
    *args: str | os.PathLike[str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``sphinx-build ARGS...`` in a fresh process, as a user runs it (without colours)."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


def assert_configuration_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, one jaxcheck message naming the problem, no traceback or crash report."""
    assert done.returncode == 2, done.stderr
    ours = [line for line in done.stderr.splitlines() if "jaxcheck: " in line]
    assert len(ours) == 1, done.stderr
    for word in words:
        assert word in ours[0], done.stderr
    assert "Traceback" not in done.stderr and "report this error" not in done.stderr
    assert "jaxcheck: configuration error: " in done.stderr
