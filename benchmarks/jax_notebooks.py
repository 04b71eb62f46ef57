"""JAX's own notebooks, checked: every cell's verdict beside a fresh nbval run, ``jaxcheck
update`` on a copy, and the time of a check beside MyST-NB's forced execution.

    python benchmarks/jax_notebooks.py --jax-docs PATH/TO/jax/docs [--python PY] [--out DIR]

``--jax-docs`` is the ``docs`` folder of JAX at the release checked (jax-v0.10.2); ``--python``
an interpreter with that JAX, IPython, nbval, MyST-NB, this package, and what the notebooks
import (matplotlib, pandas, torch, tensorflow, cloudpickle, pooch). The ten notebooks that keep
stored outputs and run on a CPU are copied into a project with JAX's own notebook settings
(its ``conf.py``); the cells that need what this machine lacks (an accelerator, the network, a
newer torch) are tagged ``nbval-skip``, which both tools honour, as a maintainer adopting
either would. Then:

1. ``jaxcheck check --no-cache --format json``, and ``pytest --nbval`` with sanitizers for the
   noise that regular expressions can express (the normalizers ``ansi``, ``addresses``,
   ``timeit``, ``cell-files``): every code cell's verdict beside nbval's;
2. ``jaxcheck update`` on a copy: which cells it rewrote; that the next check finds them
   verified; ``nbformat.validate``; that every other cell is byte for byte as it was; that
   nbval passes the rewritten cells;
3. one run each, in turn: the cold check beside ``sphinx-build`` with MyST-NB's
   ``nb_execution_mode = "force"`` (errors allowed, so every cell runs, as in the check), and
   the warm check (nothing changed) beside a build with execution off.

Prints markdown tables and the load average before and after.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat

from sphinx_jaxcheck.judge.notebooks import NORMALIZERS

NOTEBOOKS = (
    "notebooks/Common_Gotchas_in_JAX",
    "notebooks/Custom_derivative_rules_for_Python_code",
    "notebooks/autodiff_cookbook",
    "notebooks/vmapped_log_probs",
    "autodidax2_part1",
    "notebooks/autodiff_remat",
    "notebooks/convolutions",
    "notebooks/layout",
    "jep/9407-type-promotion",
    "notebooks/host-offloading",
)
# The cells (by index in the notebook's ``cells`` list) that cannot run as written here, and why.
ENVIRONMENT = {
    ("notebooks/convolutions", 5): "network: scipy.datasets.face() downloads an image",
    ("jep/9407-type-promotion", 68): "package: torch.complex32 arithmetic is not implemented",
    ("notebooks/host-offloading", 11): "accelerator: compiled memory figures of a TPU",
    ("notebooks/host-offloading", 17): "accelerator: compiled memory figures of a TPU",
    ("notebooks/host-offloading", 19): "accelerator: pinned_host memory needs a device",
    ("notebooks/host-offloading", 21): "accelerator: compiled memory figures of a TPU",
    ("notebooks/host-offloading", 23): "accelerator: compiled memory figures of a TPU",
}
Verdicts = dict[tuple[str, int], str]  # (notebook, cell index) -> status or outcome
# The notebooks that need what this machine lacks, every cell of them.
ENVIRONMENT_NOTEBOOKS = {
    "notebooks/layout": "accelerator: its cells assert a TPU's or GPU's layouts (a later cell "
    "uses what an earlier one defines, so none runs alone)",
}
# JAX's docs/conf.py (jax-v0.10.2), its notebook settings.
CONF = """\
extensions = ["myst_nb"{jaxcheck}]
source_suffix = [".rst", ".ipynb", ".md"]
exclude_patterns = ["_build", "*.md.txt"]
nb_execution_mode = "{mode}"
nb_execution_allow_errors = True
nb_merge_streams = True
nb_execution_show_tb = True
nb_execution_timeout = 200
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
jaxcheck_timeout = 200
suppress_warnings = ["myst.header"]
"""
# nbval's sanitizers for the normalizers a regular expression can express.
SANITIZE = r"""[ansi]
regex: \x1b\[[0-9;?]*[A-Za-z]
replace:

[addresses]
regex: \b0x[0-9a-fA-F]{6,}\b
replace: 0x?

[timeit]
regex: .*(per loop|loops?, best of \d|slowest run took|intermediate result is being cached).*
replace:

[cell-files]
regex: (<ipython-input-\d+-[0-9a-f]+>|/\S*/ipykernel_\d+/\d+\.py|\S+\.ipynb:cell \d+)(:\d+)*
replace: <cell>
"""


def project(root: Path, docs: Path, mode: str, jaxcheck: bool) -> Path:
    """The ten notebooks, tagged, with JAX's settings."""
    for name in NOTEBOOKS:
        target = root / f"{name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        node = nbformat.read(docs / f"{name}.ipynb", as_version=nbformat.NO_CONVERT)
        for index, cell in enumerate(node.cells):
            whole = name in ENVIRONMENT_NOTEBOOKS and cell.cell_type == "code"
            if (name, index) in ENVIRONMENT or whole:
                cell.metadata.setdefault("tags", []).append("nbval-skip")
        nbformat.write(node, target)
    toctree = "\n".join(NOTEBOOKS)
    (root / "index.md").write_text(f"# JAX notebooks\n\n```{{toctree}}\n{toctree}\n```\n")
    plugin = ', "sphinx_jaxcheck"' if jaxcheck else ""
    (root / "conf.py").write_text(CONF.format(jaxcheck=plugin, mode=mode))
    return root


def run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.stdout + done.stderr


def jaxcheck_cells(python: str, root: Path, env: dict[str, str], *args: str) -> Verdicts:
    """(notebook, cell) -> status, from ``jaxcheck check --format json``."""
    done = subprocess.run(
        [python, "-m", "sphinx_jaxcheck", "check", ".", "--format", "json", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stdout)
    return {(c["path"].removesuffix(".ipynb"), c["cell"]): c["status"] for c in report["cells"]}


def nbval_cells(python: str, root: Path, env: dict[str, str]) -> Verdicts:
    """(notebook, cell) -> passed / failed / skipped, from ``pytest --nbval`` (its items count
    code cells; mapped to their index in ``cells``)."""
    (root / "sanitize.cfg").write_text(SANITIZE)
    found: dict[tuple[str, int], str] = {}
    for name in NOTEBOOKS:
        report = root / "nbval.xml"
        subprocess.run(
            [
                python, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", "no:cacheprovider",
                "--nbval-sanitize-with", "sanitize.cfg", "--nbval-cell-timeout", "200",
                f"--junitxml={report}", f"{name}.ipynb",
            ],
            cwd=root, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        node = nbformat.read(root / f"{name}.ipynb", as_version=4)
        code = [i for i, c in enumerate(node.cells) if c.cell_type == "code"]
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            ordinal = int(case.get("name", "").rsplit(" ", 1)[-1])
            outcome = "passed"
            if case.find("skipped") is not None:
                outcome = "skipped"
            elif case.find("failure") is not None or case.find("error") is not None:
                outcome = "failed"
            found[name, code[ordinal]] = outcome
    return found


def validity(text: str) -> str:
    """What nbformat.validate says of a notebook: "valid", or its first line."""
    try:
        nbformat.validate(nbformat.reads(text, as_version=4))
    except nbformat.ValidationError as error:
        return str(error).splitlines()[0]
    return "valid"


def verdict_table(ours: Verdicts, theirs: Verdicts) -> str:
    pairs = collections.Counter((ours[k], theirs.get(k, "not an item")) for k in ours)
    lines = ["| jaxcheck | nbval | cells |", "|---|---|---:|"]
    lines += [f"| {a} | {b} | {n} |" for (a, b), n in sorted(pairs.items())]
    return "\n".join(lines)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--jax-docs", type=Path, required=True)
    options.add_argument("--python", default=sys.executable)
    options.add_argument("--out", type=Path, help="keep the projects here")
    args = options.parse_args()
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }
    scratch = args.out or Path(tempfile.mkdtemp())
    load = os.getloadavg()[0]
    checked = project(scratch / "checked", args.jax_docs, "force", jaxcheck=True)
    ours = jaxcheck_cells(args.python, checked, env)  # and the cache filled, for what follows
    theirs = nbval_cells(args.python, project(scratch / "nbval", args.jax_docs, "off", False), env)
    print(f"## Every cell: jaxcheck beside nbval ({len(ours)} code cells)\n")
    print(verdict_table(ours, theirs))
    for key, status in ours.items():
        if status == "failed":
            print(f"- failed here: {key[0]} cell {key[1]} (nbval: {theirs.get(key)})")
    # What each normalizer decides: the cells that are stale without it (the cached outcomes
    # judged again; the normalizers are no part of a session's key).
    credited: dict[tuple[str, int], list[str]] = collections.defaultdict(list)
    for name in NORMALIZERS:
        rest = ",".join(n for n in NORMALIZERS if n != name) or ","
        without = jaxcheck_cells(
            args.python, checked, env, "-D", f"jaxcheck_notebook_normalizers={rest}"
        )
        for key, status in without.items():
            if status == "stale" and ours[key] == "verified":
                credited[key].append(name)
    print("\n## Cells verified here that nbval fails, by the normalizer that decides them\n")
    differ = [k for k in ours if ours[k] == "verified" and theirs.get(k) == "failed"]
    html = "none: compared by its text/plain, where nbval compares its HTML too"
    by_rule = collections.Counter(" + ".join(credited[k]) or html for k in differ)
    for rule, count in by_rule.most_common():
        print(f"- {rule}: {count}")
    print("\n## Environment cells (tagged nbval-skip)\n")
    for (name, cell), why in ENVIRONMENT.items():
        print(f"- {name} cell {cell}: {ours.get((name, cell))}; {why}")
    for name, why in ENVIRONMENT_NOTEBOOKS.items():
        cells = collections.Counter(status for (nb, _), status in ours.items() if nb == name)
        print(f"- {name}, every code cell: {dict(cells)}; {why}")

    updated = scratch / "updated"
    shutil.copytree(checked, updated, ignore=shutil.ignore_patterns("_build"))
    before = {name: (updated / f"{name}.ipynb").read_text() for name in NOTEBOOKS}
    _, printed = run([args.python, "-m", "sphinx_jaxcheck", "update", "."], updated, env)
    again = jaxcheck_cells(args.python, updated, env, "--no-cache")
    stale = {key for key, status in ours.items() if status == "stale"}
    identical, rewritten, others, valid = 0, 0, 0, []
    for name in NOTEBOOKS:
        old = json.loads(before[name])["cells"]
        text = (updated / f"{name}.ipynb").read_text()
        # Valid as before: two of JAX's notebooks were not (cell ids in an nbformat 4.4 file).
        valid.append((validity(before[name]), validity(text)))
        for index, (was, now) in enumerate(zip(old, json.loads(text)["cells"], strict=True)):
            if (name, index) in stale:
                rewritten += was != now
            else:  # every other cell, markdown ones too
                others += 1
                identical += was == now
    after_nbval = nbval_cells(args.python, updated, env)
    print("\n## jaxcheck update on a copy\n")
    print(printed.strip().splitlines()[-1])
    print(f"- cells rewritten: {rewritten} of {len(stale)} stale")
    print(f"- other cells (markdown too) as they were: {identical} of {others}")
    print(f"- the next check: {dict(collections.Counter(again.values()))}")
    passed = dict(collections.Counter(after_nbval[k] for k in stale))
    print(f"- nbval on the rewritten cells: {passed}")
    for key in sorted(k for k in stale if after_nbval.get(k) == "failed"):
        print(f"  - nbval fails {key[0]} cell {key[1]}")
    kept = sum(was == now for was, now in valid)
    before_valid = sum(was == "valid" for was, _ in valid)
    print(f"- nbformat.validate: {kept} of {len(valid)} as before ({before_valid} valid before)")

    force = project(scratch / "force", args.jax_docs, "force", jaxcheck=False)
    off = project(scratch / "off", args.jax_docs, "off", jaxcheck=False)
    warm = scratch / "warm"
    shutil.copytree(checked, warm, ignore=shutil.ignore_patterns("_build"))
    run([args.python, "-m", "sphinx_jaxcheck", "check", "."], warm, env)  # fills the cache
    build = [args.python, "-m", "sphinx", "-E", "-q", "-b", "html", ".", "_build/html"]
    times = {
        "jaxcheck check --no-cache (cold)": run(
            [args.python, "-m", "sphinx_jaxcheck", "check", ".", "--no-cache"], checked, env
        )[0],
        "sphinx-build, MyST-NB force": run(build, force, env)[0],
        "jaxcheck check (warm, nothing changed)": run(
            [args.python, "-m", "sphinx_jaxcheck", "check", "."], warm, env
        )[0],
        "sphinx-build, execution off": run(build, off, env)[0],
    }
    print(f"\n## Time (one run each, load {load:.1f} before, {os.getloadavg()[0]:.1f} after)\n")
    print("| run | s |\n|---|---:|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds:.1f} |")
    cold, forced = times["jaxcheck check --no-cache (cold)"], times["sphinx-build, MyST-NB force"]
    warm_s, off_s = (
        times["jaxcheck check (warm, nothing changed)"],
        times["sphinx-build, execution off"],
    )
    print(f"\ncold / force = {cold / forced:.2f}; warm / off = {warm_s / off_s:.2f}")


if __name__ == "__main__":
    main()
