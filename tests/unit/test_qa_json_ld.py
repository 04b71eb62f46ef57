"""The FAQ JSON-LD of question cards (no builds)."""

from __future__ import annotations

import json

from sphinx_jaxcheck.sphinx.qa_json_ld import faq_json_ld


def test_json_ld_cannot_close_its_script_element() -> None:
    text = faq_json_ld([("Q</script><script>alert(1)", "A </script>")])
    assert "</" not in text
    assert json.loads(text)["mainEntity"][0]["name"] == "Q</script><script>alert(1)"
