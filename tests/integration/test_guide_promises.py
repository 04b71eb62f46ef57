"""Promises of the user guide, each on a real build or a real ``jaxcheck`` run.

A citation or quote alone fails the build; the cache is keyed by the block text
including commented ``>>>`` statements; update keeps CRLF when an expectation
grows; the comment on the last line of a multi-line print is its expectation;
``suppress_warnings`` silences one subtype; ``jaxcheck.worker`` when the
workers cannot start, ``jaxcheck.error`` when a platform is not there; a
commit mismatch stops the build; ``jaxcheck_timeout``; ``jaxcheck check -j N``
runs N sessions at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, jaxcheck, sphinx_build, write_project

PIN = (
    'jaxcheck_jax_version = "0.10.2"\n'
    'jaxcheck_jax_commit = "990e6a0b84138346e6a38785412f36356e0e5dc3"\n'
)
GOOD_QUOTE = "carry input and carry output must have the same"


def quote_page(quote: str) -> dict[str, str]:
    return {"q.rst": f"Q\n=\n\nAs JAX says, :jaxquote:`{quote} <loops.py::_check_carry_type>`.\n"}


@pytest.mark.parametrize(
    ("page", "status"),
    [
        (quote_page(GOOD_QUOTE), 0),
        (quote_page("carry input and carry output may differ"), 1),
        ({"s.rst": "S\n=\n\nSee :jaxsrc:`loops.py::_check_cary_type`.\n"}, 1),
    ],
    ids=["quote-holds", "stale-quote", "unknown-symbol"],
)
def test_a_citation_or_quote_alone_decides_the_exit_status(
    tmp_path: Path, page: dict[str, str], status: int
) -> None:
    root = write_project(tmp_path, page, conf=PIN)
    built = build(root)
    assert built.status == status, built.warnings
    assert built.subtypes() == ([] if status == 0 else ["citation"])
    checked = jaxcheck("check", str(root))
    assert checked.returncode == status, checked.stdout + checked.stderr
    assert "0 block(s)" in checked.stdout + checked.stderr


def test_the_cache_key_holds_commented_repl_statements(tmp_path: Path) -> None:
    page = "# Page\n\n```{jaxcheck}\nx = 1\n\n# >>> x + 2\n# 3\n```\n"
    root = write_project(tmp_path, {"page.md": page}, conf="jaxcheck_cache = True\n")
    assert build(root, fresh=True).status == 0
    (root / "page.md").write_text(page.replace("# >>> x + 2", "# >>> x + 1"))
    stale = build(root, fresh=True)
    # The statement changed, so the cached run does not apply: it runs and prints 2.
    assert "1 session(s) from the cache" not in stale.log
    assert stale.status == 1
    (drift,) = stale.reported
    assert drift.subtype == "drift" and "-3" in drift.message and "+2" in drift.message


def test_update_keeps_crlf_when_an_expectation_grows(tmp_path: Path) -> None:
    page = b"# P\r\n\r\n```{jaxcheck}\r\nfor n in range(3):\r\n    print(n)\r\n\r\n# 0\r\n```\r\n"
    root = write_project(tmp_path, {})
    (root / "p.md").write_bytes(page)
    (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   p\n")
    done = jaxcheck("update", str(root))
    assert done.returncode == 0, done.stderr
    assert (root / "p.md").read_bytes() == page.replace(b"# 0\r\n", b"# 0\r\n# 1\r\n# 2\r\n")


MULTILINE_PRINT = "print(\n    1 + 1,\n    2 * 2,\n)  # {}\nprint('after')  # after\n"


def test_the_comment_on_the_last_line_of_a_multiline_print_is_its_expectation(
    tmp_path: Path,
) -> None:
    root = write_project(
        tmp_path,
        {
            "good.md": "# Good\n\n```{jaxcheck}\n" + MULTILINE_PRINT.format("2 4") + "```\n",
            "stale.md": "# Stale\n\n```{jaxcheck}\n" + MULTILINE_PRINT.format("2 5") + "```\n",
        },
    )
    built = build(root)
    assert built.status == 1
    (drift,) = built.reported
    # Reported at the print statement (file line 4); its comment is on line 7.
    assert (drift.file, drift.line, drift.subtype) == ("stale.md", 4, "drift")
    assert "-2 5" in drift.message and "+2 4" in drift.message
    assert jaxcheck("update", str(root)).returncode == 0
    assert (root / "stale.md").read_text() == "# Stale\n\n```{jaxcheck}\n" + MULTILINE_PRINT.format(
        "2 4"
    ) + "```\n"


def test_suppress_warnings_silences_one_subtype(tmp_path: Path) -> None:
    pages = {
        "drift.md": "# Drift\n\n```{jaxcheck}\nprint(1)  # 2\n```\n",
        "slow.md": "# Slow\n\n```{jaxcheck}\n:timeout: 1\n\nimport time\ntime.sleep(60)\n```\n",
    }
    root = write_project(tmp_path, pages)
    assert sorted(build(root, fresh=True).subtypes()) == ["drift", "timeout"]
    quiet = build(root, fresh=True, suppress_warnings=["jaxcheck.timeout"])
    assert quiet.subtypes() == ["drift"]
    assert quiet.status == 1


def test_jaxcheck_timeout_stops_a_block_in_a_real_build(tmp_path: Path) -> None:
    page = (
        "# T\n\n```{jaxcheck}\nimport time\ntime.sleep(60)\n```\n\n"
        "```{jaxcheck}\n:timeout: 120\n\nprint('own timeout')  # own timeout\n```\n"
    )
    root = write_project(tmp_path, {"t.md": page}, conf="jaxcheck_timeout = 2\n")
    built = build(root)
    assert built.status == 1
    (stopped,) = built.reported
    assert (stopped.file, stopped.line, stopped.subtype) == ("t.md", 4, "timeout")
    assert "ran longer than its timeout of 2 s and was stopped" in stopped.message


def test_workers_that_cannot_start_are_reported_as_jaxcheck_worker(tmp_path: Path) -> None:
    pages = {
        "a.md": "# A\n\n```{jaxcheck}\nprint(1)  # 1\n```\n",
        "b.md": "# B\n\n```{jaxcheck}\nprint(2)  # 2\n```\n",
    }
    # An environment in which no Python can start: every block is reported, none passes.
    conf = 'jaxcheck_env = {"JAX_PLATFORMS": "cpu", "PYTHONHOME": "/nonexistent"}\n'
    built = build(write_project(tmp_path, pages, conf=conf))
    assert built.status == 1
    assert [(r.file, r.line, r.subtype) for r in built.reported] == [
        ("a.md", 4, "worker"),
        ("b.md", 4, "worker"),
    ]
    for reported in built.reported:
        assert "the jaxcheck worker" in reported.message and "did not start" in reported.message
        assert "PYTHONHOME = '/nonexistent'" in reported.message  # what the interpreter said


def test_a_platform_that_is_not_there_fails_each_block_as_the_guide_says(tmp_path: Path) -> None:
    pages = {
        "a.md": (
            "# A\n\n```{jaxcheck}\nimport jax.numpy as jnp\nprint(jnp.ones(2))  # [1. 1.]\n```\n"
        )
    }
    built = build(write_project(tmp_path, pages, conf='jaxcheck_env = {"JAX_PLATFORMS": "cuda"}\n'))
    assert built.status == 1
    ((file, line, subtype, message),) = [
        (r.file, r.line, r.subtype, r.message) for r in built.reported
    ]
    assert (file, line, subtype) == ("a.md", 4, "error")
    assert "AssertionError" in message
    # The guide names this case in the section of the subtype the build reports.
    guide = (Path(__file__).parents[2] / "demo_docs" / "guide" / "troubleshooting.md").read_text()
    sections = {part.split("`", 1)[0]: part for part in guide.split("\n## `jaxcheck.")[1:]}
    assert '"JAX_PLATFORMS": "cuda"' in sections["worker"]
    assert f"fails as a `jaxcheck.{subtype}`" in sections["worker"]


def test_a_commit_mismatch_stops_sphinx_build_with_one_message(tmp_path: Path) -> None:
    other = "0" * 40
    root = write_project(
        tmp_path / "src",
        {"a.md": "# A\n\n```{jaxcheck}\nprint(1)  # 1\n```\n"},
        conf=f'jaxcheck_jax_version = "0.10.2"\njaxcheck_jax_commit = "{other}"\n',
    )
    done = sphinx_build("-q", "-b", "html", root, tmp_path / "out")
    assert done.returncode == 2, done.stdout + done.stderr
    assert other in done.stderr and "990e6a0b84138346e6a38785412f36356e0e5dc3" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "a.html").exists()


# Two documents that each wait for the other to start: they pass only when two
# sessions run at the same time.
RENDEZVOUS = (
    "# {me}\n\n```{{jaxcheck}}\nimport pathlib, time\n"
    "here = pathlib.Path({folder!r})\n(here / '{me}').touch()\n"
    "deadline = time.monotonic() + {wait}\n"
    "while not (here / '{other}').exists() and time.monotonic() < deadline:\n    time.sleep(0.05)\n"
    "print((here / '{other}').exists())  # True\n```\n"
)


@pytest.mark.parametrize(("jobs", "wait", "failing"), [("2", 120, 0), ("1", 3, 1)])
def test_check_j_runs_that_many_sessions_at_once(
    tmp_path: Path, jobs: str, wait: int, failing: int
) -> None:
    folder = tmp_path / "marks"
    folder.mkdir()
    pages = {
        f"{me}.md": RENDEZVOUS.format(me=me, other=other, folder=str(folder), wait=wait)
        for me, other in (("a", "b"), ("b", "a"))
    }
    root = write_project(tmp_path / "docs", pages)
    done = jaxcheck("check", str(root), "-j", jobs)
    # With one worker the first session never sees the second start.
    assert done.returncode == (1 if failing else 0), done.stdout + done.stderr
    assert f"{failing} stale" in done.stdout + done.stderr
