"""One word per block status, the same in every report: summary, markers, table, JSON, guide."""

from __future__ import annotations

import json
import re

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.model import Status

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PAGE = """# States

```{jaxcheck}
:name: is-verified

print(1 + 1)

# 2
```

```{jaxcheck}
:name: is-stale

print("printed, but no comment expects it")
```

```{jaxcheck}
:name: is-failed

raise RuntimeError("boom")
```

```{jaxcheck}
:name: is-not-compared
:output: ignore

print(id(object()))

# 0
```

```{jaxcheck}
:name: is-skipped
:output: skip

raise RuntimeError("never runs")
```

```{jaxcheck-status}
```
"""
EVERY = "1 verified, 1 stale, 1 failed, 1 not compared, 1 skipped"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = write_project(
        tmp_path_factory.mktemp("states"), {"page.md": PAGE}, conf="jaxcheck_cache = True\n"
    )
    return root, build(root)


def test_the_summary_names_every_status_with_its_word(built) -> None:  # type: ignore[no-untyped-def]
    _, result = built
    assert result.status == 1
    assert f"jaxcheck: 5 block(s): {EVERY} (jax " in ANSI.sub("", result.log)


def test_markers_and_status_table_use_the_same_words(built) -> None:  # type: ignore[no-untyped-def]
    root, _ = built
    html = (root / "_build" / "html" / "page.html").read_text("utf-8")
    assert f"5 block(s): {EVERY}." in html
    for mark in ("✓ verified", "⚠ stale", "✗ failed"):
        assert html.count(mark) == 2, mark  # the marker under the block, and its table row
    assert "ran · jax 0.10.2 · not compared" in html and "skipped · jax 0.10.2" in html
    for status in Status:
        if status is not Status.OTHER_SHARD:  # only in a sharded build: see test_sharding
            assert f"jaxcheck-{status.slug}" in html


def test_json_report_uses_the_words_and_text_colour_follows_the_environment(
    built, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    root, _ = built
    assert cli.main(["check", str(root), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {b["name"]: b["status"] for b in report["blocks"]} == {
        "is-verified": "verified",
        "is-stale": "stale",
        "is-failed": "failed",
        "is-not-compared": "not compared",
        "is-skipped": "skipped",
    }
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.main(["check", str(root)]) == 1
    assert (
        "\x1b[32m+printed, but no comment" in capsys.readouterr().out
    )  # green, though no terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli.main(["check", str(root)]) == 1
    assert "\x1b[" not in capsys.readouterr().out


def test_drift_warning_ends_its_diff_before_the_warning_tag(built) -> None:  # type: ignore[no-untyped-def]
    _, result = built
    warnings = ANSI.sub("", result.warnings).splitlines()
    tagged = [line for line in warnings if line.endswith("[jaxcheck.drift]")]
    assert len(tagged) == 1
    assert tagged[0].startswith("(") and ") [jaxcheck.drift]" in tagged[0]
    before = warnings[warnings.index(tagged[0]) - 1]
    assert before == "+printed, but no comment expects it"


def test_progress_in_a_log_is_one_line_counting_the_blocks_it_announced(built) -> None:  # type: ignore[no-untyped-def]
    _, result = built
    log = ANSI.sub("", result.log)
    assert "jaxcheck: running 4 of 5 block(s) (1 document(s)" in log
    assert "; 1 block(s) not run (skipped, or refused before running)" in log
    counts = re.findall(r"jaxcheck: running blocks\.\.\. \[\s*\d+%\] (\d+)/(\d+)", log)
    # Not a terminal (a log): one line for the stage, not one per block.
    assert counts == [("4", "4")]
