"""What a block prints cannot drive the terminal, break a report's format, or bloat the search
index."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck import cli

# Recolours, retitles the terminal (OSC), hides text (CR), and holds what XML 1.0 cannot.
HOSTILE = "\\x1b[31mred\\x1b]0;pwned\\x07 nul\\x00 cr\\r bell\\x07 \\x9b surrogate\\ud800"
UNIQUE = "zqxwvjoined"  # only in the output: the code spells it in two halves
PAGE = f"""# Hostile

```{{jaxcheck}}
print("{HOSTILE}")

# something else
```

```{{jaxcheck}}
print(("zqxwv" + "joined ") * 100_000)

# a long line
```
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("escaping") / "docs", {"page.md": PAGE})


@pytest.mark.parametrize("style", ["text", "github", "json"])
def test_reports_show_control_characters_escaped(
    hostile: Path, style: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["check", str(hostile), "--format", style]) == 1
    out = capsys.readouterr().out
    for raw in ("\x1b", "\x00", "\r", "\x07", "\x9b", "\ud800"):
        assert raw not in out
    if style == "json":
        messages = [f["message"] for f in json.loads(out)["findings"]]
        assert any("\\x1b[31mred\\x1b]0;pwned\\x07 nul\\x00 cr\\r" in m for m in messages)
    else:
        assert "\\x1b[31mred\\x1b]0;pwned\\x07 nul\\x00 cr\\r" in out


def test_junit_is_well_formed_xml_whatever_a_block_printed(hostile: Path, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    assert cli.main(["check", str(hostile), "--junit", str(report)]) == 1
    suite = ElementTree.parse(report).getroot()
    failures = [f.text or "" for f in suite.iter("failure")]
    assert any("\\x1b[31mred" in text and "\\x00" in text for text in failures)


def test_sphinx_build_warnings_show_control_characters_escaped(hostile: Path) -> None:
    result = build(hostile, "html", fresh=True)
    assert "\x1b]0;pwned" not in result.warnings and "\\x1b]0;pwned" in result.warnings
    # The actual output shown on the page is not part of the search index.
    index = (Path(result.app.outdir) / "searchindex.js").read_text()
    assert UNIQUE not in index
    assert "hostil" in index  # the page itself is indexed
