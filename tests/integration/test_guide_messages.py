"""The user guide's example messages are the product's: each ``text`` block of the
troubleshooting and citations pages is what a real run prints for that case.

``tests/roots/test-troubleshooting`` holds one case of each warning the pages
show (a drift, an exception, a timeout, ``:raises:`` unmet, an unknown option,
a citation and a quote that do not hold, a name JAX lacks); it is built with
``sphinx-build`` (and, for a misspelled setting, a project of one page beside
it), then checked with ``jaxcheck check`` against a wrong pin, a
wrong commit, a bad setting, and from a Python without jax. The only
difference allowed is the project's folder, left out of the paths as the pages
print them, and that Python's path, shown as ``/home/me/venv/bin/python``.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from buildkit import ROOTS, WARNING, copy_root, jaxcheck, sphinx_build

REPO = Path(__file__).parents[2]
PAGES = ("troubleshooting.md", "citations.md")
SHOWN_PYTHON = "/home/me/venv/bin/python"


def example_messages(page: str) -> list[str]:
    """The ``text`` blocks of a guide page, each a message as the page shows it."""
    text = (REPO / "demo_docs" / "guide" / page).read_text("utf-8")
    return re.findall(r"^```text\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)


def python_without_jax(where: Path) -> Path:
    """A real interpreter that sees every package this one has, except jax and jaxlib."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    others = where.parent / f"{where.name}-packages"
    others.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.split("-")[0] not in ("jax", "jaxlib", "jax_plugins"):
            (others / entry.name).symlink_to(entry)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "others.pth").write_text(f"{others}\n", "utf-8")
    return python


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every message printed for the cases, with the project's folder left out."""
    scratch = tmp_path_factory.mktemp("troubleshooting")
    conf = 'jaxcheck_check_names = True\njaxcheck_doctests = "check"\n'
    root = copy_root("troubleshooting", scratch, conf=conf)
    built = sphinx_build("-b", "html", ".", "_build/html", cwd=root)
    assert built.returncode == 1, built.stderr
    messages = [
        f"{os.path.relpath(m['path'], root)}:{m['line']}: WARNING: {m['message']} "
        f"[jaxcheck.{m['subtype']}]"
        for m in WARNING.finditer(built.stderr)
    ]
    messages += [line for line in built.stdout.splitlines() if re.match(r"jaxcheck: \d+ ", line)]
    # A misspelled setting, in a project of its own (it would change the summary above).
    typo = scratch / "typo"
    typo.mkdir()
    (typo / "conf.py").write_text(
        (ROOTS / "conf.py").read_text("utf-8") + 'jaxcheck_jax_verison = "0.9.0"\n', "utf-8"
    )
    (typo / "index.md").write_text("# Typo\n", "utf-8")
    misspelled = sphinx_build("-b", "html", ".", "_build/html", cwd=typo)
    assert misspelled.returncode == 1, misspelled.stderr
    messages += [
        f"conf.py:{m['line']}: WARNING: {m['message']} [jaxcheck.setting]"
        for m in WARNING.finditer(misspelled.stderr)
        if m["subtype"] == "setting" and m["path"] == str(typo / "conf.py")
    ]
    cases = [
        ("-D", "jaxcheck_jax_version=0.9.0"),
        ("-D", "jaxcheck_jax_commit=" + "0" * 40),
        ("-D", "jaxcheck_on_drift=maybe"),
    ]
    for case in cases:
        done = jaxcheck("check", ".", *case, cwd=root)
        assert done.returncode == 2, done.stderr
        messages += [line for line in done.stderr.splitlines() if line.startswith("jaxcheck: ")]
    python = python_without_jax(scratch / "venv")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    unpinned = ("-D", "jaxcheck_jax_version=", "-D", "jaxcheck_check_names=0")
    done = subprocess.run(
        [python, "-m", "sphinx_jaxcheck", "check", ".", *unpinned],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    messages += [
        line.replace(str(python), SHOWN_PYTHON)
        for line in done.stderr.splitlines()
        if "jax is not installed" in line
    ]
    return [message.replace(f"{root}/", "") for message in messages]


@pytest.mark.parametrize("page", PAGES)
def test_every_example_message_of_the_page_is_what_the_product_prints(
    printed: list[str], page: str
) -> None:
    shown = example_messages(page)
    assert shown
    for message in shown:
        closest = difflib.get_close_matches(message, printed, n=1, cutoff=0)
        assert message in printed, "\n".join(
            difflib.unified_diff(
                closest[0].splitlines(), message.splitlines(), "printed", page, lineterm=""
            )
        )
