"""Workers in another interpreter: a second, real environment with jax 0.4.35.

The oracle is that environment's own jax: the corpus below holds outputs and a
quote exactly as jax 0.4.35 prints and ships them; they must hold when the
workers run there, and drift under the jax 0.10.2 running these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from buildkit import jaxcheck
from processes import alive

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run import pool
from sphinx_jaxcheck.worker.protocol import RunSession

CONF = """\
extensions = ["myst_parser", "sphinx_jaxcheck"]
exclude_patterns = ["_build"]
jaxcheck_workers = 2
"""

# Outputs as jax 0.4.35 prints them.
OLD_OUTPUTS = """\
# Outputs of jax 0.4.35

```{jaxcheck}
:name: literal
import jax
import jax.numpy as jnp
print(jax.make_jaxpr(lambda x: x * 2.0)(1.0))
# { lambda ; a:f32[]. let b:f32[] = mul a 2.0 in (b,) }
```

```{jaxcheck}
:name: pjit
inner = jax.jit(lambda x: x + 1.0)
print(jax.make_jaxpr(lambda x: inner(x) * 2.0)(1.0))
# { lambda ; a:f32[]. let
#     b:f32[] = pjit[
#       name=<lambda>
#       jaxpr={ lambda ; c:f32[]. let d:f32[] = add c 1.0 in (d,) }
#     ] a
#     e:f32[] = mul b 2.0
#   in (e,) }
```

```{jaxcheck}
:name: same-in-both
print(jnp.arange(3.0))
# [0. 1. 2.]
```

The version file of the release says {jaxquote}`_version = "0.4.35" <jax/version.py>`.
"""


def statuses(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Block name -> status, from ``--format json``."""
    return {block["name"]: block["status"] for block in json.loads(done.stdout)["blocks"]}


@pytest.fixture
def old_corpus(tmp_path: Path) -> Path:
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "index.md").write_text(OLD_OUTPUTS)
    return tmp_path


def test_outputs_of_an_older_jax_hold_in_its_interpreter_and_drift_in_ours(
    old_corpus: Path, older_python: Path
) -> None:
    there = jaxcheck("check", old_corpus, "--python", older_python, "--format", "json")
    assert there.returncode == 0, there.stdout + there.stderr
    assert statuses(there) == {
        "literal": "verified",
        "pjit": "verified",
        "same-in-both": "verified",
    }
    assert "(jax 0.4.35)" in json.loads(there.stdout)["summary"]

    here = jaxcheck("check", old_corpus, "--format", "json")
    assert here.returncode == 1
    assert statuses(here) == {"literal": "stale", "pjit": "stale", "same-in-both": "verified"}
    findings = json.loads(here.stdout)["findings"]
    # The quote of jax 0.4.35's version file is checked against the source of the jax that runs.
    assert any(f["subtype"] == "citation" and "0.4.35" in f["message"] for f in findings)
    assert "(jax 0.10.2)" in json.loads(here.stdout)["summary"]


def test_a_second_check_with_another_interpreter_is_served_from_the_cache(
    old_corpus: Path, older_python: Path, tmp_path: Path
) -> None:
    first = jaxcheck("check", old_corpus, "--python", older_python)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "running 3 of 3 block(s)" in first.stderr
    entries = sorted((old_corpus / ".jaxcheck_cache").glob("*.json"))
    assert entries
    cold = jaxcheck("check", old_corpus, "--python", older_python, "--build-dir", tmp_path / "b")
    assert cold.returncode == 0, cold.stdout + cold.stderr
    assert "running 0 of 3 block(s)" in cold.stderr and "3 block(s) from the cache" in cold.stderr
    # Incremental: the same interpreter, the same fingerprint, nothing to read or run again.
    warm = jaxcheck("check", old_corpus, "--python", older_python)
    assert warm.returncode == 0 and "running" not in warm.stderr, warm.stderr
    assert sorted((old_corpus / ".jaxcheck_cache").glob("*.json")) == entries


def test_the_pin_is_checked_against_the_workers_jax(old_corpus: Path, older_python: Path) -> None:
    with (old_corpus / "conf.py").open("a") as conf:
        conf.write('jaxcheck_jax_version = "0.10.2"\n')
    refused = jaxcheck("check", old_corpus, "--python", older_python)
    assert refused.returncode == 2
    assert "installed jax 0.4.35 differs from the pinned jax 0.10.2" in refused.stderr
    assert "Traceback" not in refused.stderr
    # --jax-version overrides the pin for one run, as -D does.
    for override in (["--jax-version", "0.4.35"], ["-D", "jaxcheck_jax_version=0.4.35"]):
        done = jaxcheck("check", old_corpus, "--python", older_python, *override)
        assert done.returncode == 0, done.stdout + done.stderr


def test_jaxcheck_python_in_conf_py_is_relative_to_it(old_corpus: Path, older_python: Path) -> None:
    relative = os.path.relpath(older_python, old_corpus)  # as conf.py would write it
    with (old_corpus / "conf.py").open("a") as conf:
        conf.write(f"jaxcheck_python = {relative!r}\n")
    elsewhere = old_corpus.parent
    done = jaxcheck("check", old_corpus.name, cwd=elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(jax 0.4.35)" in done.stdout


def test_each_build_asks_the_workers_interpreter_once(
    old_corpus: Path, older_python: Path, tmp_path: Path
) -> None:
    """One probe answers both the pin check (its jax) and the cache key (all it has installed),
    and its answer is kept until the interpreter changes.

    The workers' interpreter is a wrapper that logs how it was started: once
    with ``-c`` (the probe) in a cold build, not again in an incremental build,
    once more after the interpreter's file changed; the workers are started with ``-m``.
    """
    log = tmp_path / "started.txt"
    wrapper = tmp_path / "python-wrapper"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {log}\nexec {older_python} "$@"\n')
    wrapper.chmod(0o755)
    installed = time.time_ns() - 3600 * 10**9  # an interpreter installed an hour ago
    os.utime(wrapper, ns=(installed, installed))
    with (old_corpus / "conf.py").open("a") as conf:
        conf.write(f"jaxcheck_python = {str(wrapper)!r}\n")
    for checks, changed in ((1, False), (1, False), (2, True)):
        if changed:
            os.utime(wrapper, ns=(1_000_000_000, 1_000_000_000))  # another interpreter there
        done = jaxcheck("check", old_corpus)
        assert done.returncode == 0, done.stdout + done.stderr
        started = log.read_text().splitlines()
        assert started.count("-c") == checks, started
    assert "-m" in started  # the workers ran there, in the first check


def test_another_jax_keeps_its_compiled_programs_in_the_cache_folder_without_a_limit_of_its_own(
    older_python: Path, tmp_path: Path
) -> None:
    """jax 0.4.35, without filelock: JAX gets no size limit (jaxcheck bounds the folder after
    the build), and its programs are kept for the next build."""
    page = (
        "# Limit\n\n```{jaxcheck}\nimport os\nimport jax\n"
        'print(os.environ.get("JAX_COMPILATION_CACHE_MAX_SIZE"))\n'
        "print(jax.jit(lambda x: x * 2.5)(1.0))\n\n# None\n# 2.5\n```\n"
    )
    (tmp_path / "conf.py").write_text(CONF + "jaxcheck_cache = True\njaxcheck_cache_max_mb = 1\n")
    (tmp_path / "index.md").write_text(page)
    done = jaxcheck("check", tmp_path, "--python", older_python)
    assert done.returncode == 0, done.stdout + done.stderr
    assert any((tmp_path / ".jaxcheck_cache" / "xla").iterdir())


def test_another_jax_runs_each_session_in_a_process_of_its_own(older_python: Path) -> None:
    """With jax 0.4.35 too, a session changes nothing a later one sees: each runs in its own
    child."""
    change = "jnp.zeros = jnp.ones"
    show = "import os, jax.numpy as jnp\nprint(os.getpid(), jnp.zeros(1).dtype, jnp.zeros(1)[0])"
    first_code = f"import jax, jax.numpy as jnp\n{change}\n" + show
    sessions = {
        "first": RunSession("first", (), (Program(first_code, "<first>"),)),
        "second": RunSession("second", (), (Program(show, "<second>"),)),
    }
    workers = pool.Workers(pool.WorkerSettings(python=str(older_python)))
    try:
        outcomes = workers.run(sessions)
    finally:
        workers.close()
    first, second = (outcomes[key].items[0].stdout.split() for key in ("first", "second"))
    assert first[1:] == ["float32", "1.0"] and second[1:] == ["float32", "0.0"], outcomes
    assert first[0] != second[0]


def _bare_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def _fake_distribution(python: Path, name: str, version: str) -> None:
    """Metadata of a distribution, as pip would leave it (no code: only the version is read)."""
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    info = Path(site) / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (Path(site) / name).mkdir(exist_ok=True)
    (Path(site) / name / "__init__.py").write_text("")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: tmp / "missing" / "python", "no executable at"),
        (lambda tmp: Path("/bin/true"), "does not run as a Python interpreter"),
        (lambda tmp: _bare_venv(tmp / "venv"), "has no jax"),
    ],
    ids=["missing", "not-python", "without-jax"],
)
def test_an_interpreter_that_cannot_run_the_workers_is_a_configuration_error(
    old_corpus: Path,
    tmp_path: Path,
    make,
    expected: str,  # type: ignore[no-untyped-def]
) -> None:
    python = make(tmp_path)
    done = jaxcheck("check", old_corpus, "--python", python)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in done.stderr and str(python) in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0  # one message


def test_an_interpreter_that_hangs_is_ended_with_every_process_it_started(
    old_corpus: Path, tmp_path: Path
) -> None:
    """A wrapper that starts a child and never answers: after the probe's time (two seconds,
    as JAXCHECK_PROBE_SECONDS sets it for tests; 120 otherwise), one message, exit 2, and
    neither process left running."""
    pids = tmp_path / "pids"
    hanging = tmp_path / "python"
    hanging.write_text(f"#!/bin/sh\nsleep 600 &\necho $$ $! > {pids}\nwait\n")
    hanging.chmod(0o755)
    env = {**os.environ, "JAXCHECK_PROBE_SECONDS": "2"}
    done = jaxcheck("check", old_corpus, "--python", hanging, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not answer within 2 s (it was ended, with every process it started)" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 2 and not any(alive(pid) for pid in started)


def test_a_jax_older_than_the_workers_support_is_a_configuration_error(
    old_corpus: Path, tmp_path: Path
) -> None:
    python = _bare_venv(tmp_path / "venv")
    _fake_distribution(python, "jax", "0.4.20")
    _fake_distribution(python, "jaxlib", "0.4.20")
    done = jaxcheck("check", old_corpus, "--python", python)
    assert done.returncode == 2
    assert (
        "has jax 0.4.20, older than the oldest release the workers support (0.4.30)" in done.stderr
    )
    assert "Traceback" not in done.stderr


def test_sphinx_build_reports_a_bad_interpreter_as_a_configuration_error(
    old_corpus: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-b",
            "html",
            "-D",
            "jaxcheck_python=missing/python",
            str(old_corpus),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert (
        "jaxcheck_python = 'missing/python': no executable at "
        + str(old_corpus / "missing" / "python")
        in done.stderr
    )


def test_a_malformed_definition_is_a_usage_error(old_corpus: Path) -> None:
    done = jaxcheck("check", old_corpus, "-D", "jaxcheck_timeout")
    assert done.returncode == 2
    assert "expected name=value, got 'jaxcheck_timeout'" in done.stderr


def test_a_definition_reaches_the_configuration(old_corpus: Path) -> None:
    done = jaxcheck("check", old_corpus, "-D", "jaxcheck_on_drift=bogus")
    assert done.returncode == 2
    assert "jaxcheck_on_drift = 'bogus' is not one of error, warning, ignore" in done.stderr


LIMITED = """\
# Limited blocks

```{jaxcheck}
:name: old-literal
:jax-version: <0.5
import jax
print(jax.make_jaxpr(lambda x: x * 2.0)(1.0))
# { lambda ; a:f32[]. let b:f32[] = mul a 2.0 in (b,) }
```

```{jaxcheck}
:name: new-literal
:jax-version: ">=0.5"
import jax
print(jax.make_jaxpr(lambda x: x * 2.0)(1.0))
# { lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }
```

```{jaxcheck}
:name: gpu-only
:platforms: gpu
import jax
print(jax.devices()[0].platform)
# gpu
```

```{jaxcheck}
:name: cpu-or-tpu
:platforms: cpu, tpu
import jax
print(jax.devices()[0].platform)
# cpu
```
"""


@pytest.fixture
def limited_corpus(tmp_path: Path) -> Path:
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "index.md").write_text(LIMITED)
    return tmp_path


def reasons(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Block name -> why it was skipped, from ``--format json``."""
    return {
        b["name"]: b.get("reason", "")
        for b in json.loads(done.stdout)["blocks"]
        if b["status"] == "skipped"
    }


def test_version_and_platform_limits_decide_which_blocks_run(
    limited_corpus: Path, older_python: Path
) -> None:
    old = jaxcheck("check", limited_corpus, "--python", older_python, "--format", "json")
    assert old.returncode == 0, old.stdout + old.stderr
    assert statuses(old) == {
        "old-literal": "verified",
        "new-literal": "skipped",
        "gpu-only": "skipped",
        "cpu-or-tpu": "verified",
    }
    assert reasons(old) == {
        "new-literal": "jax-version >=0.5 excludes jax 0.4.35",
        "gpu-only": "platforms gpu: the workers run on cpu",
    }
    new = jaxcheck("check", limited_corpus, "--format", "json")
    assert new.returncode == 0, new.stdout + new.stderr
    assert statuses(new) == {
        "old-literal": "skipped",
        "new-literal": "verified",
        "gpu-only": "skipped",
        "cpu-or-tpu": "verified",
    }
    assert reasons(new)["old-literal"] == "jax-version <0.5 excludes jax 0.10.2"
    text = jaxcheck("check", limited_corpus)
    assert (
        "index.md:6: skipped: block 'old-literal': jax-version <0.5 excludes jax 0.10.2"
        in text.stdout
    )


def test_the_platform_jax_picks_is_asked_when_the_environment_does_not_say(
    limited_corpus: Path,
) -> None:
    with (limited_corpus / "conf.py").open("a") as conf:
        conf.write("jaxcheck_env = {}\n")
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    done = jaxcheck("check", limited_corpus, "--format", "json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        reasons(done)["gpu-only"] == "platforms gpu: the workers run on cpu"
    )  # this machine has no GPU
    assert statuses(done)["cpu-or-tpu"] == "verified"


def test_update_leaves_blocks_of_other_releases_alone(limited_corpus: Path) -> None:
    source = limited_corpus / "index.md"
    stale = LIMITED.replace("mul a 2.0:f32[] in", "mul a 3.0:f32[] in")
    source.write_text(stale)
    done = jaxcheck("update", limited_corpus)
    assert done.returncode == 0, done.stdout + done.stderr
    # The stale block of this release is rewritten; the block for jax <0.5 keeps its old output.
    assert source.read_text() == LIMITED


def test_a_bad_limit_is_an_option_error(limited_corpus: Path) -> None:
    source = limited_corpus / "index.md"
    source.write_text(
        LIMITED.replace(":jax-version: <0.5", ":jax-version: before 0.5").replace(
            ":platforms: gpu", ":platforms: gpu, npu"
        )
    )
    done = jaxcheck("check", limited_corpus)
    assert done.returncode == 1
    assert (
        "option \":jax-version:\": 'before 0.5' is not allowed; expected a PEP 440 version "
        "specifier, e.g. <0.5 or >=0.7,<0.9" in done.stdout
    )
    assert (
        "option \":platforms:\": 'gpu, npu' is not allowed; expected some of cpu, gpu, tpu"
        in done.stdout
    )


def test_the_other_interpreter_does_not_import_the_jax_beside_our_package(
    old_corpus: Path, older_python: Path, tmp_path: Path
) -> None:
    # Installed, our package sits in site-packages next to Sphinx's jax: a folder
    # like that, with a jax that cannot be imported, must not reach the workers.
    site = tmp_path / "site-packages"
    (site / "jax").mkdir(parents=True)
    (site / "jax" / "__init__.py").write_text(
        "raise ImportError('the jax beside sphinx_jaxcheck was imported')\n"
    )
    (site / "sphinx_jaxcheck").symlink_to(Path(__file__).parents[2] / "sphinx_jaxcheck")
    run = (
        f"import sys; sys.path.insert(0, {str(site)!r}); import sphinx_jaxcheck.cli as cli; "
        f"assert cli.__file__.startswith({str(site)!r}); "
        f"raise SystemExit(cli.main(['check', {str(old_corpus)!r}, "
        f"'--python', {str(older_python)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 verified" in done.stdout and "(jax 0.4.35)" in done.stdout


@pytest.fixture
def two_pages(tmp_path: Path) -> Path:
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "index.md").write_text("# Pages\n\n```{toctree}\nold\nlimited\n```\n")
    (tmp_path / "old.md").write_text(OLD_OUTPUTS)
    (tmp_path / "limited.md").write_text(LIMITED + "\n```{jaxcheck-matrix}\n:page:\n```\n")
    return tmp_path


def test_the_matrix_has_a_column_per_release_and_a_verdict_per_block(
    two_pages: Path, older_python: Path
) -> None:
    done = jaxcheck("matrix", two_pages, "--python", older_python, "--format", "json")
    assert done.returncode == 1, done.stderr  # the outputs of 0.4.35 drift on 0.10.2
    matrix = json.loads(done.stdout)
    assert matrix["versions"] == ["0.4.35", "0.10.2"]
    rows = {row["name"]: (row["path"], row["status"]) for row in matrix["blocks"]}
    assert rows == {
        "literal": ("old.md", {"0.4.35": "verified", "0.10.2": "stale"}),
        "pjit": ("old.md", {"0.4.35": "verified", "0.10.2": "stale"}),
        "same-in-both": ("old.md", {"0.4.35": "verified", "0.10.2": "verified"}),
        "old-literal": ("limited.md", {"0.4.35": "verified", "0.10.2": "skipped"}),
        "new-literal": ("limited.md", {"0.4.35": "skipped", "0.10.2": "verified"}),
        "gpu-only": ("limited.md", {"0.4.35": "skipped", "0.10.2": "skipped"}),
        "cpu-or-tpu": ("limited.md", {"0.4.35": "verified", "0.10.2": "verified"}),
    }
    assert (
        json.loads((two_pages / "_build" / "jaxcheck" / "matrix.json").read_text())["blocks"]
        == matrix["blocks"]
    )

    # The same matrix as text and Markdown, from the cache this time.
    text = jaxcheck("matrix", two_pages, "--python", older_python)
    assert text.stdout.splitlines()[0].split() == ["block", "where", "0.4.35", "0.10.2"]
    assert ["literal", "old.md:5", "verified", "stale"] in [
        line.split() for line in text.stdout.splitlines()
    ]
    markdown = jaxcheck("matrix", two_pages, "--python", older_python, "--format", "markdown")
    assert "| old-literal | limited.md:6 | verified | skipped |" in markdown.stdout.splitlines()


def test_the_matrix_directive_shows_the_last_matrix_and_vouches_for_its_rows(
    two_pages: Path, older_python: Path
) -> None:
    html = two_pages / "_build" / "html"
    sphinx_build = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(two_pages), str(html)]
    missing = subprocess.run(sphinx_build, capture_output=True, text=True)
    assert "no compatibility matrix at" in missing.stderr and "[jaxcheck.matrix]" in missing.stderr

    assert jaxcheck("matrix", two_pages, "--python", older_python).returncode == 1
    (two_pages / "old.md").unlink()  # its drifting rows stay in the matrix, not on the page
    (two_pages / "index.md").write_text("# Pages\n\n```{toctree}\nlimited\n```\n")
    clean = subprocess.run([*sphinx_build, "-W"], capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    page = (html / "limited.html").read_text()
    table = page[page.index("jaxcheck-matrix-table") : page.index("</table>")]
    assert table.count("<tr") == 1 + 4 and "jax 0.4.35" in table and "✓ verified" in table

    # A page showing the whole matrix vouches for the drifting rows too; a changed block is
    # stale in it.
    (two_pages / "old.md").write_text(OLD_OUTPUTS)
    (two_pages / "index.md").write_text("# Pages\n\n```{toctree}\nold\nlimited\n```\n")
    (two_pages / "limited.md").write_text(
        LIMITED.replace(
            ":platforms: cpu, tpu\nimport jax\n", ":platforms: cpu, tpu\nimport jax  # changed\n"
        )
        + "\n```{jaxcheck-matrix}\n```\n"
    )
    warned = subprocess.run(sphinx_build, capture_output=True, text=True)
    assert "block 'literal' is stale with jax 0.10.2 in the last `jaxcheck matrix`" in warned.stderr
    assert "block 'cpu-or-tpu' changed since the last `jaxcheck matrix`" in warned.stderr
    assert (
        warned.stderr.count("[jaxcheck.matrix]") == 3
    )  # literal and pjit are stale; cpu-or-tpu changed
    checked = jaxcheck("check", two_pages, "--format", "json")
    assert checked.returncode == 1
    matrix = [f for f in json.loads(checked.stdout)["findings"] if f["subtype"] == "matrix"]
    assert sorted(f["message"].split(" ")[1] for f in matrix) == [
        "'cpu-or-tpu'",
        "'literal'",
        "'pjit'",
    ]


def test_jaxcheck_check_reports_a_matrix_table_without_a_matrix(two_pages: Path) -> None:
    done = jaxcheck("check", two_pages)
    assert done.returncode == 1, done.stdout + done.stderr
    line = len(LIMITED.splitlines()) + 2  # the table's fence, after a blank line
    assert f"limited.md:{line}: matrix: no compatibility matrix at " in done.stdout
    assert "run `jaxcheck matrix SOURCEDIR --python PATH` before building" in done.stdout
    assert "1 other problem(s)" in done.stdout


NATIVE = """\
# Native examples

```python
>>> import jax
>>> # jaxcheck: jax-version <0.5
>>> print(jax.make_jaxpr(lambda x: x * 2.0)(1.0))
{ lambda ; a:f32[]. let b:f32[] = mul a 2.0 in (b,) }

```

```python
>>> # jaxcheck: platforms gpu
>>> print(jax.devices()[0].platform)
gpu

```

```python
>>> # jaxcheck: platforms npu
>>> print(1)
1

```
"""


def test_page_examples_are_limited_by_comment_directives(
    tmp_path: Path, older_python: Path
) -> None:
    (tmp_path / "conf.py").write_text(CONF + 'jaxcheck_doctests = "check"\n')
    (tmp_path / "index.md").write_text(NATIVE)
    old = jaxcheck("check", tmp_path, "--python", older_python, "--format", "json")
    new = jaxcheck("check", tmp_path, "--format", "json")
    for done, version in ((old, "0.4.35"), (new, "0.10.2")):
        report = json.loads(done.stdout)
        by_line = {  # the page's groups of examples, apart from its (no) jaxcheck blocks
            group["line"]: (group["status"], group.get("reason", ""))
            for group in report["example_groups"]
        }
        assert report["blocks"] == []
        first = (
            ("verified", "")
            if version == "0.4.35"
            else ("skipped", "jax-version <0.5 excludes jax 0.10.2")
        )
        assert by_line[4] == first, (version, by_line)
        # doctest drops a comment-only example: the directive right above the examples counts.
        assert by_line[13] == ("skipped", "platforms gpu: the workers run on cpu")
        assert by_line[20][0] == "failed"
        assert [(f["line"], f["subtype"]) for f in report["findings"]] == [(19, "option")]
        assert (
            "`# jaxcheck: platforms`: 'npu' is not some of cpu, gpu, tpu"
            in report["findings"][0]["message"]
        )
        assert done.returncode == 1
