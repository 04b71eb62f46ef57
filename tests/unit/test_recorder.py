"""What the worker's recorder hears, in a Python process of its own (its audit hook stays for
the life of the process): each way a session may load a file of the project, and each search
of the import path."""

from __future__ import annotations

import _ctypes
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from sphinx_jaxcheck.worker.dependencies import LINK, MISSING, dependencies_from_wire

REPO = Path(__file__).resolve().parents[2]

SESSION = """
import importlib.util, json, runpy, sys
from sphinx_jaxcheck.worker.dependencies import dependencies_to_wire
from sphinx_jaxcheck.worker.recorder import Recorder

recorder = Recorder({"<page[1]>"})
recorder.install()
runpy.run_path("by_runpy.py")
spec = importlib.util.spec_from_file_location("plugin", "by_spec.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
import linked, zipped
try:
    import absent
except ImportError:
    pass
exec(compile("x = 1", "<page[1]>", "exec"))
print(json.dumps(dependencies_to_wire(recorder.take())))
"""


def test_every_way_in_is_recorded_as_first_used(tmp_path: Path) -> None:
    for name in ("by_runpy", "by_spec", "real"):
        (tmp_path / f"{name}.py").write_text(f"NAME = {name!r}\n")
    (tmp_path / "middle.py").symlink_to("real.py")
    (tmp_path / "linked.py").symlink_to(tmp_path / "middle.py")
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("zipped.py", "NAME = 'zipped'\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(archive)])}
    ran = subprocess.run(
        [sys.executable, "-B", "-c", SESSION],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    used = dependencies_from_wire(json.loads(ran.stdout))
    here = str(tmp_path)
    assert not used.untracked
    assert {k: v for k, v in used.files.items() if not v.startswith(LINK)}.keys() == {
        f"{here}/by_runpy.py",
        f"{here}/by_spec.py",
        f"{here}/real.py",
        str(archive),
    }
    assert {k: v for k, v in used.files.items() if v.startswith(LINK)} == {
        f"{here}/linked.py": LINK + f"{here}/middle.py",
        f"{here}/middle.py": LINK + "real.py",
    }
    found = {lookup.name: lookup.found for lookup in used.lookups}
    assert found["linked"] == f"{here}/linked.py"
    assert found["zipped"] == f"{archive}/zipped.py"
    assert found["absent"] is None
    # What an import searched ends where it was found; a failed one searched all of sys.path.
    zipped = next(lookup for lookup in used.lookups if lookup.name == "zipped")
    assert zipped.search[-1] == str(archive)
    assert "<page[1]>" not in used.files


LEARNING = """
import ctypes, glob, json, os, pathlib, shutil, sqlite3, subprocess, tempfile
from sphinx_jaxcheck.worker.dependencies import dependencies_to_wire
from sphinx_jaxcheck.worker.recorder import Recorder

recorder = Recorder(set())
recorder.install()
open("read.txt").read()
with open("both.txt", "r+") as f:
    f.read()
open("written.txt", "w").write("x")
try:
    open("absent.txt")
except FileNotFoundError:
    pass
os.listdir("folder")
[e.stat().st_size for e in os.scandir("scanned")]
glob.glob("globbed/*.txt")
os.path.exists("maybe.txt")
os.path.getsize("read.txt")
pathlib.Path("stated.txt").stat()
os.path.realpath("alias.txt")
os.path.samefile("real.txt", "alias.txt")
pathlib.Path("folder").is_dir()
with tempfile.TemporaryFile() as scratch:
    pass
with tempfile.TemporaryDirectory() as made:
    shutil.copy("read.txt", made)
    os.listdir(made)
    open(os.path.join(made, "read.txt")).read()
first = json.dumps(dependencies_to_wire(recorder.take()))
subprocess.run(["true"])
sqlite3.connect(":memory:").close()
sqlite3.connect("db.sqlite").close()
# As cffi and compiled code load a library: the C library's dlopen, which no audit event hears.
process = ctypes.CDLL(None)
process.dlopen.restype = ctypes.c_void_p
assert process.dlopen(os.path.abspath("libcopy.so").encode(), 2)
print(first)
print(json.dumps(dependencies_to_wire(recorder.take(ending=True))))
"""


def test_every_route_a_session_learns_by_is_recorded_or_named(tmp_path: Path) -> None:
    """Files read in any mode that reads, failed opens, listings, scans and their entries'
    stats, existence tests, sizes, stats, real paths, which file two paths name and a
    folder's kind (not its times) are recorded; a write, a temporary file, what is in a
    temporary folder the session made and a database in memory are not inputs; a child
    process, a database file and a shared library of the project loaded as cffi loads one
    make the session untracked, each named."""
    shutil.copy(_ctypes.__file__, tmp_path / "libcopy.so")  # a shared library of the project's
    for name in ("read.txt", "both.txt", "stated.txt", "real.txt"):
        (tmp_path / name).write_text("text")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    for folder in ("folder", "scanned", "globbed"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.txt").write_text("a")
    ran = subprocess.run(
        [sys.executable, "-B", "-c", LEARNING],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
    )
    first, then = (dependencies_from_wire(json.loads(line)) for line in ran.stdout.splitlines())
    here = str(tmp_path)
    assert set(first.files) == {f"{here}/read.txt", f"{here}/both.txt", f"{here}/absent.txt"}
    assert first.files[f"{here}/absent.txt"] == MISSING
    assert set(first.probes) == {
        f"listing {here}/folder",
        f"listing {here}/scanned",
        f"stat {here}/scanned/a.txt",
        f"listing {here}/globbed",
        f"exists {here}/maybe.txt",
        f"size {here}/read.txt",
        f"stat {here}/stated.txt",
        f"realpath {here}/alias.txt",
        f"identity {here}/real.txt",
        f"identity {here}/alias.txt",
        f"type {here}/folder",
        # shutil.copy of read.txt into the temporary folder: which file it is, and its mode.
        f"identity {here}/read.txt",
        f"stat {here}/read.txt",
    }
    assert first.probes[f"identity {here}/alias.txt"] == first.probes[f"identity {here}/real.txt"]
    assert first.probes[f"type {here}/folder"] == "folder"
    assert first.probes[f"exists {here}/maybe.txt"] == MISSING
    assert first.probes[f"realpath {here}/alias.txt"] == f"{here}/real.txt"
    assert not first.untracked
    assert then.untracked == (
        "the block started the program true (subprocess.Popen), which the cache cannot follow",
        "the block opened the SQLite database db.sqlite (sqlite3.connect), which the cache "
        "cannot follow",
        f"the block loaded the shared library {here}/libcopy.so (by cffi, or by compiled code), "
        "which the cache cannot follow",
    )
