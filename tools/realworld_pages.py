"""Fetch five of JAX's own documentation pages, the real-world test data, and convert them.

    python tools/realworld_pages.py [DEST] [--from JAX_CHECKOUT]

writes ``DEST/jax-docs/`` (the pages as JAX's docs/ holds them at jax-v0.10.2, each checked
against its digest) and ``DEST/jax-docs-jaxcheck/`` (the same pages with every code block or
doctest paragraph that starts with ``>>>`` turned into a ``jaxcheck`` block, and a hidden block
importing what JAX's doctest namespace holds). DEST defaults to ``.realworld`` in the
repository, where the tests look (or set JAXCHECK_REALWORLD to DEST). The pages come from
github.com, or from a JAX checkout at that tag (``git clone --branch jax-v0.10.2
https://github.com/jax-ml/jax``). They are JAX's, under the Apache License 2.0.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"  # jax-v0.10.2
URL = "https://raw.githubusercontent.com/jax-ml/jax/{commit}/docs/{page}"
DIGESTS = {
    "aot.md": "144a748cd827a6de26a15f9db7a0727f680733554609cce746e925d98c8fd488",
    "async_dispatch.rst": "9725eecd3f4ae8af7918e3067b92bc2305ee419c2bed438a268a47bdf2b80b02",
    "faq.rst": "1a2a878126a40ebc8e0619798ed433805ec8d2866f020548b2d2fbe3e0e2b7b5",
    "transfer_guard.rst": "e7d56e3adf8f2b4b95e5a49f985cef9e1c3826d8023be47da0ca28a071ad64b4",
    "type_promotion.rst": "163cf67cb20615a01f676d448c9f0cb49f4098aa23f1f9a7a5b665dbef6c7164",
}
DEFAULT = Path(__file__).resolve().parents[1] / ".realworld"
IMPORTS = ("import jax", "import jax.numpy as jnp", "import numpy as np", "from jax import lax")


def fetch(page: str, checkout: Path | None) -> bytes:
    """A page as JAX's docs/ holds it at the commit, from a checkout or from github.com."""
    if checkout is not None:
        shown = ["git", "-C", str(checkout), "show", f"{COMMIT}:docs/{page}"]
        data = subprocess.run(shown, capture_output=True, check=True).stdout
    else:
        with urllib.request.urlopen(URL.format(commit=COMMIT, page=page), timeout=60) as reply:
            data = reply.read()
    if hashlib.sha256(data).hexdigest() != DIGESTS[page]:
        raise SystemExit(f"{page}: not the page of JAX at {COMMIT} (its digest differs)")
    return data


def convert(page: str, text: str) -> str:
    """The page with its ``>>>`` blocks as ``jaxcheck`` blocks, after a hidden import block."""
    lines = text.split("\n")
    converted = _convert_md(lines) if page.endswith(".md") else _convert_rst(lines)
    return "\n".join(converted)


def _title_end(lines: list[str], markdown: bool) -> int:
    """The index of the blank line after the page's title."""
    for number, line in enumerate(lines):
        if markdown and line.startswith("# "):
            return number + 1
        if not markdown and number and re.fullmatch(r"=+", line) and lines[number - 1].strip():
            return number + 1
    raise ValueError("the page has no title")


def _convert_md(lines: list[str]) -> list[str]:
    out: list[str] = []
    fence = False
    for number, line in enumerate(lines):
        if not fence and line == "```python" and lines[number + 1].startswith(">>>"):
            line = "```{jaxcheck}"
        if line.startswith("```"):
            fence = not fence
        out.append(line)
    at = _title_end(lines, markdown=True) + 1
    return [*out[:at], "```{jaxcheck}", ":hide:", "", *IMPORTS, "```", "", *out[at:]]


def _convert_rst(lines: list[str]) -> list[str]:
    out: list[str] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        starts_paragraph = number == 0 or not lines[number - 1].strip()
        if line.startswith(">>>") and starts_paragraph:  # a doctest paragraph, as one block
            end = number
            while end < len(lines) and lines[end].strip():
                end += 1
            out += [".. jaxcheck::", "", *(f"   {text}" for text in lines[number:end])]
            number = end
            continue
        if line == ".. code-block:: python" and _first_text(lines, number + 1).startswith(">>>"):
            line = ".. jaxcheck::"
        out.append(line)
        number += 1
    at = _title_end(lines, markdown=False) + 1
    hidden = [".. jaxcheck::", "   :hide:", "", *(f"   {text}" for text in IMPORTS), "", ""]
    return [*out[:at], *hidden, *out[at:]]


def _first_text(lines: list[str], start: int) -> str:
    return next((line.strip() for line in lines[start:] if line.strip()), "")


def write(dest: Path, checkout: Path | None) -> None:
    """Both folders of pages in ``dest``."""
    for folder in ("jax-docs", "jax-docs-jaxcheck"):
        (dest / folder).mkdir(parents=True, exist_ok=True)
    for page in DIGESTS:
        data = fetch(page, checkout)
        (dest / "jax-docs" / page).write_bytes(data)
        (dest / "jax-docs-jaxcheck" / page).write_text(convert(page, data.decode()), "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--from", dest="checkout", type=Path, help="a JAX checkout to read")
    args = parser.parse_args()
    write(args.dest, args.checkout)
    print(f"JAX's pages are in {args.dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
