"""Wall time of sharded checks and of ``pytest --jaxcheck``, side by side on the benchmark corpus.

    python benchmarks/sharding.py                 # 64 documents x 8 blocks
    python benchmarks/sharding.py --docs 16 --output /tmp/sharding.md

Generates the corpus of ``benchmarks/run.py`` (every expectation exact), with
the result cache off, and times once each, in this order, every run a fresh
subprocess on a fresh copy of the project:

* ``jaxcheck check`` (workers: the CPU count);
* ``jaxcheck check --shard 1/2``, then ``--shard 2/2``, then ``jaxcheck merge``
  of their JSON reports: one machine running both shards one after the other;
* ``jaxcheck check -j 2``;
* ``pytest --jaxcheck DOCS -n 2`` (pytest-xdist).

Also checks that the merged report equals the full run's, and that every
pytest item passed. Writes a markdown table of the times and ratios.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import PYTHON, jaxcheck_project, machine, make_corpus, measure

HERE = Path(__file__).resolve().parent


def plugin_args() -> list[str]:
    """Installed, the plugin loads through its entry point; from a checkout, by name."""
    registered = any(
        ep.value == "sphinx_jaxcheck.pytest_plugin"
        for ep in importlib.metadata.entry_points(group="pytest11")
    )
    return [] if registered else ["-p", "sphinx_jaxcheck.pytest_plugin"]


def json_of(log: str) -> str:
    """The JSON report in a run's output (progress lines on stderr come first)."""
    return log[log.index("{") :]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=64, help="documents (default: 64)")
    parser.add_argument("--blocks", type=int, default=8, help="blocks per document (default: 8)")
    parser.add_argument(
        "--output", type=Path, default=HERE / "sharding.md", help="where to write the table"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jaxcheck-shard-bench-"))
    try:
        corpus = make_corpus(args.docs, args.blocks, work)
        source = jaxcheck_project(corpus, work / "source")
        with (source / "conf.py").open("a") as conf:
            conf.write("jaxcheck_cache = False\n")

        def fresh(name: str) -> Path:
            root = work / name
            shutil.copytree(source, root / "docs")
            return root

        check = [PYTHON, "-m", "sphinx_jaxcheck", "check", "docs"]
        full_root = fresh("full")
        full = measure([*check, "--format", "json"], cwd=full_root)
        shard_root = fresh("shards")
        shards = [
            measure([*check, "--shard", f"{k}/2", "--format", "json"], cwd=shard_root)
            for k in (1, 2)
        ]
        for k, run in enumerate(shards, 1):
            (shard_root / f"shard{k}.json").write_text(json_of(run.log))
        merged = measure(
            [
                PYTHON,
                "-m",
                "sphinx_jaxcheck",
                "merge",
                "shard1.json",
                "shard2.json",
                "--format",
                "json",
            ],
            cwd=shard_root,
        )
        jobs = measure([*check, "-j", "2"], cwd=fresh("jobs"))
        pytest_root = fresh("pytest")
        pytest = measure(
            [
                PYTHON,
                "-m",
                "pytest",
                *plugin_args(),
                "-p",
                "no:cacheprovider",
                "-q",
                "--jaxcheck",
                "docs",
                "-n",
                "2",
            ],
            cwd=pytest_root,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    full_report, merged_report = json.loads(json_of(full.log)), json.loads(merged.log)
    same = [b["status"] for b in full_report["blocks"]] == [
        b["status"] for b in merged_report["blocks"]
    ] and (
        full_report["findings"] == merged_report["findings"]
        and full_report["summary"] == merged_report["summary"]
    )
    assert same, "the merged report differs from the full run's"
    blocks = args.docs * args.blocks
    assert f"{blocks} passed" in pytest.log, pytest.log[-2000:]

    sequential = shards[0].seconds + shards[1].seconds + merged.seconds
    rows = [
        ("`jaxcheck check`", full.seconds, full.seconds),
        ("`--shard 1/2`", shards[0].seconds, full.seconds),
        ("`--shard 2/2`", shards[1].seconds, full.seconds),
        ("`jaxcheck merge`", merged.seconds, full.seconds),
        ("2 shards one after the other + merge", sequential, full.seconds),
        ("`jaxcheck check -j 2`", jobs.seconds, jobs.seconds),
        ("`pytest --jaxcheck -n 2`", pytest.seconds, jobs.seconds),
    ]
    lines = [
        "# Shards and pytest, side by side",
        "",
        f"`python benchmarks/sharding.py --docs {args.docs} --blocks {args.blocks}` on "
        f"{machine()} {args.docs} documents x {args.blocks} blocks ({blocks} blocks, "
        "one session per document), result cache off, one run of each, in the order listed. "
        f"The merged report equals the full run's; all {blocks} pytest items passed.",
        "",
        "| run | wall time | vs |",
        "|---|---:|---|",
    ]
    for name, seconds, reference in rows:
        against = "`jaxcheck check`" if reference is full.seconds else "`jaxcheck check -j 2`"
        lines.append(f"| {name} | {seconds:.1f} s | {seconds / reference:.2f}x {against} |")
    args.output.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
