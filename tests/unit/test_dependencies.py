"""What a session depended on, checked again: links followed as the system follows them,
archives found from the names inside them, imports searched as Python's own path hooks do,
records that survive the wire and refuse what is not one."""

from __future__ import annotations

import importlib.machinery
import os
import time
import zipfile
from pathlib import Path

import pytest

from sphinx_jaxcheck.cache.dependencies import changes, reusable
from sphinx_jaxcheck.worker.dependencies import (
    LINK,
    MISSING,
    NAMESPACE,
    SETTLED_NS,
    Dependencies,
    Finders,
    Lookup,
    archive_of,
    content_digest,
    dependencies_from_wire,
    dependencies_to_wire,
    observe,
    probe_key,
    resolve,
    settled_version,
)

SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def test_resolve_follows_a_chain_of_links_and_names_each(tmp_path: Path) -> None:
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "one.py").write_text("")
    (tmp_path / "current.py").symlink_to("variants/one.py")
    (tmp_path / "helper.py").symlink_to(tmp_path / "current.py")
    final, links = resolve(str(tmp_path / "helper.py"))
    assert final == str(tmp_path / "variants" / "one.py")
    assert links == {
        str(tmp_path / "helper.py"): LINK + str(tmp_path / "current.py"),
        str(tmp_path / "current.py"): LINK + "variants/one.py",
    }
    assert final == os.path.realpath(tmp_path / "helper.py")


def test_resolve_follows_linked_folders_and_parent_steps_as_the_system_does(
    tmp_path: Path,
) -> None:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "real" / "mod.py").write_text("")
    (tmp_path / "lib").symlink_to("real/deep")
    # lib/.. is real/, not tmp_path: ".." applies to where the link led.
    final, links = resolve(str(tmp_path / "lib" / ".." / "mod.py"))
    assert final == str(tmp_path / "real" / "mod.py") == os.path.realpath(final)
    assert links == {str(tmp_path / "lib"): LINK + "real/deep"}


def test_resolve_ends_a_loop_of_links(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    _, links = resolve(str(tmp_path / "a"))
    assert set(links) == {str(tmp_path / "a"), str(tmp_path / "b")}


def test_a_name_inside_an_archive_is_held_by_the_archive(tmp_path: Path) -> None:
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("pkg/mod.py", "")
    assert archive_of(str(archive / "pkg" / "mod.py")) == str(archive)
    assert archive_of(str(archive)) == str(archive)
    assert archive_of(str(tmp_path / "nothing" / "here.py")) is None  # a pseudo file name
    assert archive_of(str(tmp_path)) is None  # a folder holds nothing by that name
    assert archive_of("<page[1]>") is None


def test_finders_search_as_pythons_path_hooks_do(tmp_path: Path) -> None:
    first, second, archive = tmp_path / "first", tmp_path / "second", tmp_path / "lib.zip"
    first.mkdir()
    second.mkdir()
    (second / "mod.py").write_text("")
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("zipped.py", "")
    search = [str(tmp_path / "absent"), str(first), str(second), str(archive)]
    finders = Finders(SUFFIXES)
    assert finders.find("mod", search) == (str(second / "mod.py"), 2)
    assert finders.find("zipped", search) == (str(archive / "zipped.py"), 3)
    assert finders.find("nothing_of_that_name", search) == (None, 3)
    # As importlib itself finds them.
    spec = importlib.machinery.PathFinder.find_spec("mod", search)
    assert spec is not None and spec.origin == str(second / "mod.py")

    (first / "mod").mkdir()
    (first / "mod" / "__init__.py").write_text("")
    assert Finders(SUFFIXES).find("mod", search) == (str(first / "mod" / "__init__.py"), 1)


def test_a_package_beats_a_module_of_the_same_name_in_one_folder(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("")
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "__init__.py").write_text("")
    found, _ = Finders(SUFFIXES).find("mod", [str(tmp_path)])
    assert found == str(tmp_path / "mod" / "__init__.py")


def test_namespace_portions_are_what_a_search_without_a_module_finds(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder / "space").mkdir(parents=True)
    search = [str(tmp_path / "a"), str(tmp_path / "b")]
    found, index = Finders(SUFFIXES).find("space", search)
    expected = os.pathsep.join(str(tmp_path / f / "space") for f in ("a", "b"))
    assert (found, index) == (NAMESPACE + expected, 1)
    (tmp_path / "b" / "space.py").write_text("")  # a module anywhere beats the portions
    assert Finders(SUFFIXES).find("space", search) == (str(tmp_path / "b" / "space.py"), 1)


def test_extension_modules_are_found_by_the_workers_suffixes(tmp_path: Path) -> None:
    (tmp_path / "fast.cpython-399-other.so").write_text("")
    assert Finders(SUFFIXES).find("fast", [str(tmp_path)])[0] is None
    found, _ = Finders([".cpython-399-other.so"]).find("fast", [str(tmp_path)])
    assert found == str(tmp_path / "fast.cpython-399-other.so")


def recorded(tmp_path: Path) -> Dependencies:
    """A helper, a link to it, and an import of it, as a worker records them."""
    (tmp_path / "real.py").write_text("NAME = 1\n")
    (tmp_path / "helper.py").symlink_to("real.py")
    search = (str(tmp_path),)
    return Dependencies(
        {
            str(tmp_path / "helper.py"): LINK + "real.py",
            str(tmp_path / "real.py"): content_digest(str(tmp_path / "real.py")),
        },
        (Lookup("helper", search, str(tmp_path / "helper.py")), Lookup("absent", search, None)),
        SUFFIXES,
    )


def test_nothing_changed_is_reusable(tmp_path: Path) -> None:
    used = recorded(tmp_path)
    assert list(changes(used)) == [] and reusable(used)
    assert not reusable(Dependencies(used.files, used.lookups, SUFFIXES, ("an import hook",)))


def test_each_change_is_named(tmp_path: Path) -> None:
    used = recorded(tmp_path)
    (tmp_path / "real.py").write_text("NAME = 2\n")
    (tmp_path / "other.py").write_text("NAME = 1\n")
    (tmp_path / "helper.py").unlink()
    (tmp_path / "helper.py").symlink_to("other.py")
    (tmp_path / "absent.py").write_text("")
    assert list(changes(used)) == [
        f"{tmp_path / 'helper.py'} now links to other.py",
        f"{tmp_path / 'real.py'} changed",
        f"`import absent` would now find {tmp_path / 'absent.py'} instead of nothing",
    ]
    (tmp_path / "helper.py").unlink()
    (tmp_path / "real.py").unlink()
    assert list(changes(used))[:2] == [
        f"{tmp_path / 'helper.py'} no longer links to real.py",
        f"{tmp_path / 'real.py'} is gone",
    ]


def test_an_older_copy_with_its_old_modification_time_is_a_change(tmp_path: Path) -> None:
    """``cp -p`` of an older version: same size, same mtime, other content."""
    (tmp_path / "real.py").write_text("NAME = 1\n")
    (tmp_path / "old.py").write_text("NAME = 0\n")
    stat = (tmp_path / "real.py").stat()
    used = Dependencies({str(tmp_path / "real.py"): content_digest(str(tmp_path / "real.py"))})
    assert reusable(used)
    (tmp_path / "real.py").write_bytes((tmp_path / "old.py").read_bytes())
    os.utime(tmp_path / "real.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert list(changes(used)) == [f"{tmp_path / 'real.py'} changed"]


def test_a_file_rewritten_at_once_with_the_same_size_is_a_change(tmp_path: Path) -> None:
    """Rewritten within one tick of the file system's clock, a file keeps its times and size;
    only its content tells (git's "racy" files)."""
    path = tmp_path / "real.py"
    for n in range(20):
        path.write_text(f"NAME = {n % 10}\n")
        used = Dependencies({str(path): content_digest(str(path))})
        assert reusable(used)
        path.write_text(f"NAME = {(n + 1) % 10}\n")
        assert list(changes(used)) == [f"{path} changed"]


def test_a_file_is_known_by_its_stat_only_once_it_has_settled(tmp_path: Path) -> None:
    """On a file system with a coarse clock, a file changed within the last tick may change
    again with the same times and size: until :data:`SETTLED_NS` has passed it has no stat
    to be remembered by, and is read whenever it is asked for."""
    path = tmp_path / "real.py"
    path.write_text("NAME = 1\n")
    assert settled_version(str(path)) is None
    time.sleep(SETTLED_NS / 1e9)
    stat = path.stat()
    kept = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino, stat.st_dev)
    assert settled_version(str(path)) == kept


def test_merged_keeps_the_digest_first_seen() -> None:
    first = Dependencies({"a": "1"}, (Lookup("m", ("x",), None),), SUFFIXES, ("why",))
    later = Dependencies({"a": "2", "b": "3"}, (Lookup("m", ("x",), None),), (), ("why", "else"))
    both = first.merged(later)
    assert both.files == {"a": "1", "b": "3"}
    assert both.lookups == first.lookups and both.suffixes == SUFFIXES
    assert both.untracked == ("why", "else")


def test_dependencies_survive_the_wire(tmp_path: Path) -> None:
    used = recorded(tmp_path)
    wire = dependencies_to_wire(used)
    assert wire["paths"] == [[str(tmp_path)]]  # shared by both lookups
    assert dependencies_from_wire(wire) == used


@pytest.mark.parametrize(
    "damage",
    [
        lambda wire: [],
        lambda wire: {**wire, "extra": 1},
        lambda wire: {**wire, "files": {"a": 1}},
        lambda wire: {**wire, "paths": [[1]]},
        lambda wire: {**wire, "lookups": [["helper", 5, None]]},
        lambda wire: {**wire, "lookups": [["helper", -1, None]]},
        lambda wire: {**wire, "lookups": [["helper", 0]]},
        lambda wire: {**wire, "lookups": [["helper", 0, 3]]},
        lambda wire: {**wire, "untracked": "why"},
        lambda wire: {**wire, "probes": {"guess /x": "1"}},
        lambda wire: {**wire, "probes": {"size /x": 1}},
    ],
)
def test_what_is_not_a_record_is_refused(tmp_path: Path, damage: object) -> None:
    assert callable(damage)
    with pytest.raises((TypeError, ValueError)):
        dependencies_from_wire(damage(dependencies_to_wire(recorded(tmp_path))))


def test_an_unreadable_file_digests_as_missing(tmp_path: Path) -> None:
    assert content_digest(str(tmp_path / "absent.py")) == MISSING
    assert content_digest(str(tmp_path)) == MISSING


def test_each_probe_is_asked_again_and_a_change_is_named(tmp_path: Path) -> None:
    """What a session learned of a path without reading it, and a file it did not find:
    unchanged, the session is reusable; each change is named."""
    folder, sized, alias = tmp_path / "folder", tmp_path / "sized.txt", tmp_path / "alias"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    sized.write_text("abc")
    alias.symlink_to("sized.txt")
    asked = {
        ("listing", folder),
        ("exists", tmp_path / "maybe.txt"),
        ("size", sized),
        ("type", alias),
        ("stat", sized),
        ("realpath", alias),
        ("access", sized),
    }
    probes = {probe_key(probe, str(path)): observe(probe, str(path)) for probe, path in asked}
    used = Dependencies({str(tmp_path / "later.txt"): MISSING}, (), SUFFIXES, (), probes)
    assert dependencies_from_wire(dependencies_to_wire(used)) == used
    assert probes[probe_key("exists", str(tmp_path / "maybe.txt"))] == MISSING
    assert probes[probe_key("type", str(alias))] == "link to file"
    assert reusable(used)
    (folder / "b.txt").write_text("b")
    (tmp_path / "maybe.txt").write_text("")
    (tmp_path / "later.txt").write_text("")
    sized.write_text("abcde")
    (tmp_path / "other.txt").write_text("")
    alias.unlink()
    alias.symlink_to("other.txt")
    assert sorted(changes(used)) == sorted(
        [
            f"{tmp_path / 'later.txt'} now exists",
            f"the entries of the folder {folder} changed",
            f"{tmp_path / 'maybe.txt'} now exists",
            f"the size of {sized} changed",
            f"{sized} changed",  # its stat
            f"{alias} now names {tmp_path / 'other.txt'}",
        ]
    )
