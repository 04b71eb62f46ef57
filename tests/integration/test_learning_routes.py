"""Property: whatever a block learns of the world, and whatever then changes there, a warm
check reports what a check that keeps nothing (``-D jaxcheck_cache=0``) reports.

Blocks are drawn from the standard library's routes to what is on disk
(:data:`ROUTES`, one each), each reading a folder of its own; then a change to
what some of them learned from (or none). Routes the workers cannot follow (a
child process, a database, ``ctypes``, a library loaded as ``cffi`` loads one)
are there too: their sessions must run every time. One project, checked once per
example before the changes.
"""

from __future__ import annotations

import _ctypes
import json
import pickle
import shutil
import sqlite3
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from buildkit import jaxcheck, write_project
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def zipped(path: Path, text: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("member.txt", text)


def database(path: Path, value: int) -> None:
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("create table t (v integer)")
        db.execute("insert into t values (?)", (value,))


def replace_by_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


@dataclass(frozen=True)
class Route:
    """A block that learns by one route (its code sees its folder as ``D``), what it prints
    at first, the folder as it is at first, and the changes that may follow."""

    code: str
    printed: str
    make: Callable[[Path], object]
    changes: dict[str, Callable[[Path], object]] = field(default_factory=dict)


# Each route the generator covers, by the module and function the block learns through.
ROUTES: dict[str, Route] = {
    "os.listdir": Route(
        "import os\nprint(sorted(os.listdir(D)))",
        "['a.txt']",
        lambda d: write(d / "a.txt", "a"),
        {
            "add": lambda d: write(d / "b.txt", "b"),
            "remove": lambda d: (d / "a.txt").unlink(),
            "edit": lambda d: write(d / "a.txt", "aa"),
        },
    ),
    "os.scandir": Route(
        "import os\nprint(sorted((e.name, e.stat().st_size) for e in os.scandir(D)))",
        "[('a.txt', 1)]",
        lambda d: write(d / "a.txt", "a"),
        {"grow": lambda d: write(d / "a.txt", "aaa"), "add": lambda d: write(d / "b", "")},
    ),
    "os.walk": Route(
        "import os\nprint(sorted(f for _, _, files in os.walk(D) for f in files))",
        "['a.txt']",
        lambda d: write(d / "sub" / "a.txt", "a"),
        {"nested": lambda d: write(d / "sub" / "deeper" / "b.txt", "b")},
    ),
    "os.path.exists": Route(
        "import os.path\nprint(os.path.exists(D + '/maybe'))",
        "False",
        lambda d: d.mkdir(parents=True),
        {"create": lambda d: write(d / "maybe", "")},
    ),
    "os.path.getsize": Route(
        "import os.path\nprint(os.path.getsize(D + '/f'))",
        "1",
        lambda d: write(d / "f", "a"),
        {"grow": lambda d: write(d / "f", "abc")},
    ),
    "os.path.isdir": Route(
        "import os.path\nprint(os.path.isdir(D + '/x'))",
        "False",
        lambda d: write(d / "x", ""),
        {"to folder": lambda d: replace_by_folder(d / "x")},
    ),
    "pathlib.Path.is_dir": Route(
        "from pathlib import Path\nprint(Path(D, 'x').is_dir(), Path(D, 'y').exists())",
        "True False",
        lambda d: (d / "x").mkdir(parents=True),
        {
            "to file": lambda d: ((d / "x").rmdir(), write(d / "x", "")),
            "create": lambda d: write(d / "y", ""),
            "unrelated": lambda d: write(d / "x" / "inside.txt", ""),
        },
    ),
    "os.path.samefile": Route(
        "import os.path\nprint(os.path.samefile(D + '/a', D + '/b'))",
        "True",
        lambda d: (write(d / "a", "a"), (d / "b").symlink_to("a")),
        {"copy": lambda d: ((d / "b").unlink(), write(d / "b", "a"))},
    ),
    "pathlib.Path.read_text": Route(
        "from pathlib import Path\nprint(Path(D, 'f.txt').read_text())",
        "one",
        lambda d: write(d / "f.txt", "one"),
        {"edit": lambda d: write(d / "f.txt", "two")},
    ),
    "pathlib.Path.iterdir": Route(
        "from pathlib import Path\nprint(sorted(p.name for p in Path(D).iterdir()))",
        "['a']",
        lambda d: write(d / "a", ""),
        {"add": lambda d: write(d / "b", "")},
    ),
    "pathlib.Path.glob": Route(
        "from pathlib import Path\nprint(sorted(p.name for p in Path(D).glob('*.txt')))",
        "['a.txt']",
        lambda d: write(d / "a.txt", ""),
        {"add": lambda d: write(d / "c.txt", ""), "other": lambda d: write(d / "c.csv", "")},
    ),
    "io.open r+": Route(
        "import io\nwith io.open(D + '/f.txt', 'r+') as f:\n    print(f.read())",
        "one",
        lambda d: write(d / "f.txt", "one"),
        {"edit": lambda d: write(d / "f.txt", "two")},
    ),
    "open, failed then created": Route(
        "try:\n    print(open(D + '/later.txt').read())\nexcept FileNotFoundError:\n"
        "    print('absent')",
        "absent",
        lambda d: d.mkdir(parents=True),
        {"create": lambda d: write(d / "later.txt", "present")},
    ),
    "shutil.copytree": Route(
        "import os, shutil, tempfile\nwith tempfile.TemporaryDirectory() as t:\n"
        "    shutil.copytree(D, t + '/c')\n"
        "    print(sorted(os.listdir(t + '/c')), open(t + '/c/f.txt').read())",
        "['f.txt'] one",
        lambda d: write(d / "f.txt", "one"),
        {"edit": lambda d: write(d / "f.txt", "two"), "add": lambda d: write(d / "g", "")},
    ),
    "glob.glob": Route(
        "import glob, os\nprint(sorted(os.path.basename(p) for p in glob.glob(D + '/*.txt')))",
        "['a.txt']",
        lambda d: write(d / "a.txt", ""),
        {"add": lambda d: write(d / "b.txt", "")},
    ),
    "fnmatch.filter": Route(
        "import fnmatch, os\nprint(fnmatch.filter(sorted(os.listdir(D)), '*.txt'))",
        "['a.txt']",
        lambda d: write(d / "a.txt", ""),
        {"add": lambda d: write(d / "b.txt", "")},
    ),
    "tempfile": Route(
        "import shutil, tempfile\nwith tempfile.NamedTemporaryFile('w+') as t:\n"
        "    t.write(open(D + '/f.txt').read())\n    t.seek(0)\n    print(t.read())",
        "one",
        lambda d: write(d / "f.txt", "one"),
        {"edit": lambda d: write(d / "f.txt", "two")},
    ),
    "subprocess": Route(
        "import subprocess\n"
        "print(subprocess.run(['cat', D + '/f.txt'], capture_output=True, text=True).stdout)",
        "one",
        lambda d: write(d / "f.txt", "one"),
        {"edit": lambda d: write(d / "f.txt", "two")},
    ),
    "sqlite3": Route(
        "import sqlite3\nwith sqlite3.connect(D + '/db') as db:\n"
        "    print(db.execute('select v from t').fetchone()[0])",
        "1",
        lambda d: (d.mkdir(parents=True), database(d / "db", 1)),
        {"update": lambda d: database(d / "db", 2)},
    ),
    "ctypes": Route(
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nprint(libc.abs(-1))",
        "1",
        lambda d: d.mkdir(parents=True),
        {},
    ),
    "dlopen, as cffi": Route(
        "import ctypes\nprocess = ctypes.CDLL(None)\nprocess.dlopen.restype = ctypes.c_void_p\n"
        "print(bool(process.dlopen((D + '/libcopy.so').encode(), 2)))",
        "True",
        lambda d: (d.mkdir(parents=True), shutil.copy(_ctypes.__file__, d / "libcopy.so")),
        {"remove": lambda d: (d / "libcopy.so").unlink()},
    ),
    "importlib.resources": Route(
        "import importlib.resources, sys\nsys.path.insert(0, D)\n"
        "print(importlib.resources.files('respkg').joinpath('data.txt').read_text())",
        "one",
        lambda d: (
            (write(d / "respkg" / "__init__.py", ""), write(d / "respkg" / "data.txt", "one"))
        ),
        {"edit": lambda d: write(d / "respkg" / "data.txt", "two")},
    ),
    "zipfile": Route(
        "import zipfile\nprint(zipfile.ZipFile(D + '/a.zip').read('member.txt').decode())",
        "one",
        lambda d: (d.mkdir(parents=True), zipped(d / "a.zip", "one")),
        {"rewrite": lambda d: zipped(d / "a.zip", "two")},
    ),
    "json.load": Route(
        "import json\nprint(json.load(open(D + '/f.json'))['v'])",
        "1",
        lambda d: write(d / "f.json", json.dumps({"v": 1})),
        {"edit": lambda d: write(d / "f.json", json.dumps({"v": 2}))},
    ),
    "pickle.load": Route(
        "import pickle\nprint(pickle.load(open(D + '/f.pkl', 'rb')))",
        "1",
        lambda d: (d.mkdir(parents=True), (d / "f.pkl").write_bytes(pickle.dumps(1))),
        {"edit": lambda d: (d / "f.pkl").write_bytes(pickle.dumps(2))},
    ),
    "sys.path": Route(
        "import sys\nsys.path.insert(0, D)\nimport pathmod\nprint(pathmod.NAME)",
        "one",
        lambda d: write(d / "pathmod.py", "NAME = 'one'\n"),
        {
            "edit": lambda d: write(d / "pathmod.py", "NAME = 'two'\n"),
            "shadow": lambda d: write(d / "pathmod" / "__init__.py", "NAME = 'package'\n"),
        },
    ),
}


def page(name: str, folder: Path) -> str:
    route = ROUTES[name]
    return (
        f"# {name}\n\n```{{jaxcheck}}\nD = {str(folder)!r}\n{route.code}\n\n"
        f"# {route.printed}\n```\n"
    )


def reported(root: Path, *options: str) -> dict[str, Any]:
    """What a check reports, less what differs between any two runs (timings, the run)."""
    done = jaxcheck("check", root, "--format", "json", *options)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return {
        "blocks": sorted((b["document"], b["status"]) for b in report["blocks"]),
        "findings": sorted((f["subtype"], f["message"]) for f in report["findings"]),
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for every example: its pages are rewritten, its cache kept."""
    return write_project(tmp_path_factory.mktemp("routes") / "docs", {}, "jaxcheck_cache = True\n")


@st.composite
def learning_then_changes(draw: st.DrawFn) -> tuple[list[str], dict[str, str]]:
    """Blocks by some routes, then a change (or none) to what each learned from."""
    routes = draw(st.lists(st.sampled_from(sorted(ROUTES)), min_size=1, max_size=5, unique=True))
    changes = {
        name: draw(st.sampled_from(["none", *sorted(ROUTES[name].changes)])) for name in routes
    }
    return routes, changes


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(learning_then_changes())
def test_a_warm_check_reports_what_a_check_keeping_nothing_does(
    project: Path, drawn: tuple[list[str], dict[str, str]]
) -> None:
    routes, changes = drawn
    world = project.parent / "world"
    shutil.rmtree(world, ignore_errors=True)
    for doc in project.glob("page*.md"):
        doc.unlink()
    for number, name in enumerate(routes):
        ROUTES[name].make(world / str(number))
        write(project / f"page{number}.md", page(name, world / str(number)))
    toctree = "".join(f"   page{number}\n" for number in range(len(routes)))
    write(project / "index.rst", f"Index\n=====\n\n.. toctree::\n\n{toctree}")
    first = reported(project)
    assert all(status == "verified" for _, status in first["blocks"]), first
    for number, name in enumerate(routes):
        if changes[name] != "none":
            ROUTES[name].changes[changes[name]](world / str(number))
    note(f"changed: {changes}")
    assert reported(project) == reported(project, "-D", "jaxcheck_cache=0")
