"""The workers' interpreter is asked once, then its answer is kept between builds until
something it depends on changes (a distribution installed where the workers import from, the
interpreter, the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import ended_within

from sphinx_jaxcheck.run import interpreter
from sphinx_jaxcheck.run.interpreter import Probe

REPO = Path(__file__).resolve().parents[2]


def _env(folder: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(REPO), str(folder)]), "JAX_PLATFORMS": "cpu"}


def settle(*folders: Path) -> None:
    """Date the folders an hour back, as a distribution installed long before the build."""
    back = time.time_ns() - 3600 * 10**9
    for folder in folders:
        os.utime(folder, ns=(back, back))


def _settled_site(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A folder the workers import from, settled; where answers are kept; their environment."""
    packages, kept = tmp_path / "site", tmp_path / "kept"
    packages.mkdir()
    settle(packages)
    return packages, kept, _env(packages)


def _unaskable(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the interpreter was asked again")


def test_an_answer_is_kept_until_a_distribution_changes_where_workers_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packages, kept, env = _settled_site(tmp_path)
    first = Probe(sys.executable, env, remember=kept).fingerprint
    assert list(kept.glob("*.probe"))
    with monkeypatch.context() as patched:
        patched.setattr(interpreter, "_start", _unaskable)
        assert Probe(sys.executable, env, remember=kept).fingerprint == first
    installed = packages / "made_up_package-1.0.dist-info"
    installed.mkdir()
    (installed / "METADATA").write_text("Name: made-up-package\nVersion: 1.0\n", "utf-8")
    second = Probe(sys.executable, env, remember=kept).fingerprint
    assert second != first
    assert second == Probe(sys.executable, env).fingerprint  # what a fresh question answers
    (installed / "METADATA").write_text("Name: made-up-package\nVersion: 2.0\n", "utf-8")
    os.rename(installed, packages / "made_up_package-2.0.dist-info")  # as pip upgrades
    assert Probe(sys.executable, env, remember=kept).fingerprint not in (first, second)


def test_an_answer_is_not_kept_when_where_workers_import_changed_just_before(
    tmp_path: Path,
) -> None:
    """Changed within the file system's clock granularity, a folder may change again without
    its time changing: an answer that depends on it is not kept."""
    packages, kept = tmp_path / "site", tmp_path / "kept"
    packages.mkdir()
    Probe(sys.executable, _env(packages), remember=kept).fingerprint  # noqa: B018 - asks
    assert not list(kept.glob("*.probe"))


def test_another_environment_is_asked_on_its_own(tmp_path: Path) -> None:
    _, kept, env = _settled_site(tmp_path)
    plain = Probe(sys.executable, env, remember=kept).fingerprint
    other = Probe(
        sys.executable, {**env, "XLA_FLAGS": "--xla_cpu_enable_fast_math=false"}, remember=kept
    )
    assert other.fingerprint != plain
    assert len(list(kept.glob("*.probe"))) == 2


def test_a_refusal_is_never_kept(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho not a python\n", "utf-8")
    fake.chmod(0o755)
    probe = Probe(str(fake), {}, remember=kept)
    assert probe.fingerprint  # made of the failure
    assert not list(kept.glob("*.probe"))


def test_a_probe_begun_early_answers_as_one_asked_when_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, kept, env = _settled_site(tmp_path)
    begun = Probe(sys.executable, env, remember=kept)
    begun.begin()
    assert begun.fingerprint == Probe(sys.executable, env).fingerprint
    with monkeypatch.context() as patched:
        patched.setattr(interpreter, "_start", _unaskable)
        Probe(sys.executable, env, remember=kept).begin()  # kept: nothing to start


def test_a_probe_begun_but_never_read_ends_with_the_process_that_began_it(
    tmp_path: Path,
) -> None:
    """A build stopped before its first cache key leaves no probe running."""
    slow, said = tmp_path / "python", tmp_path / "pid"
    # Written aside and renamed: the file appears whole, never created but still empty.
    slow.write_text(
        f"#!/bin/sh\necho $$ > {said}.part\nmv {said}.part {said}\nexec sleep 120\n", "utf-8"
    )
    slow.chmod(0o755)
    begins = (
        "import os, time\n"
        "from sphinx_jaxcheck.run.interpreter import Probe\n"
        f"probe = Probe({str(slow)!r}, {{}})\n"  # kept: a probe dropped unread ends at once
        "probe.begin()\n"
        f"while not os.path.exists({str(said)!r}): time.sleep(0.01)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", begins], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert ended_within(int(said.read_text()), 30)


def test_a_fork_of_the_process_that_began_a_probe_asks_on_its_own(tmp_path: Path) -> None:
    """As Sphinx's parallel reading forks: both processes get the whole answer."""
    _, _, env = _settled_site(tmp_path)
    answers = tmp_path / "answers"
    forks = (
        "import os, sys\n"
        "from sphinx_jaxcheck.run.interpreter import Probe\n"
        f"probe = Probe(sys.executable, {env!r})\n"
        "probe.begin()\n"
        "if os.fork() == 0:\n"
        f"    open({str(answers)!r}, 'a').write(probe.fingerprint + '\\n')\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        f"open({str(answers)!r}, 'a').write(probe.fingerprint + '\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", forks], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert answers.read_text().split() == [Probe(sys.executable, env).fingerprint] * 2


def _counting_runs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every time the interpreter is asked for its startup path, noted."""
    asked: list[object] = []
    run = subprocess.run

    def counted(*args: object, **kwargs: object) -> object:
        asked.append(args)
        return run(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(interpreter.subprocess, "run", counted)
    return asked


def test_a_startup_path_is_kept_until_a_folder_on_it_or_the_users_site_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packages, kept, base = tmp_path / "site", tmp_path / "kept", tmp_path / "user"
    packages.mkdir()
    base.mkdir()
    settle(packages, base)
    monkeypatch.setenv("PYTHONPATH", str(packages))
    monkeypatch.setenv("PYTHONUSERBASE", str(base))
    user_site = subprocess.run(
        [sys.executable, "-c", "import site; print(site.getusersitepackages())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    asked = _counting_runs(monkeypatch)
    first = interpreter.startup_path(sys.executable, str(tmp_path), kept)
    assert first is not None and str(packages) in first
    assert interpreter.startup_path(sys.executable, str(tmp_path), kept) == first
    assert len(asked) == 1
    (packages / "more.pth").write_text(f"{tmp_path}\n", "utf-8")  # as an install adds one
    settle(packages)
    assert interpreter.startup_path(sys.executable, str(tmp_path), kept) == first
    assert len(asked) == 2
    # The user's site-packages appears (pip install --user): asked again, though that
    # folder was on no path before.
    os.makedirs(user_site)
    interpreter.startup_path(sys.executable, str(tmp_path), kept)
    assert len(asked) == 3


def test_a_startup_path_is_asked_again_in_another_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, other, kept = tmp_path / "one", tmp_path / "other", tmp_path / "kept"
    for folder in (one, other):
        folder.mkdir()
    settle(one, other)
    monkeypatch.setenv("PYTHONPATH", str(one))
    first = interpreter.startup_path(sys.executable, str(tmp_path), kept)
    monkeypatch.setenv("PYTHONPATH", str(other))
    second = interpreter.startup_path(sys.executable, str(tmp_path), kept)
    assert first is not None and second is not None
    assert str(one) in first - second and str(other) in second - first
