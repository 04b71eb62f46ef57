"""Benchmark sphinx-jaxcheck against the floor, a plain build, MyST-NB and sphinx.ext.doctest.

    python benchmarks/run.py                      # 16 documents x 8 blocks
    python benchmarks/run.py --docs 4 16 64 --blocks 8

For each corpus size it generates a synthetic project (every block a jitted
computation and a printed jaxpr, with exact expected outputs found by running
the blocks once), then times, in one run and on the same code:

* floor: one Python process that imports jax once and executes every block;
  again pinned to one core, since XLA compiles on several threads (on 2 cores,
  half of this second floor is the reference for a build with 2 workers);
* plain: a Sphinx build of the same pages with ``jaxcheck`` swapped for a code block;
* jaxcheck cold with 1 worker, and with ``-j 2`` and 2 workers (empty cache);
* jaxcheck warm: ``sphinx-build -E`` with the cache the cold build left;
* MyST-NB (``nb_execution_mode = "force"``) on the pages as text notebooks;
* ``sphinx.ext.doctest`` (``-b doctest``) with ``testcode`` / ``testoutput`` pairs.

Every run is a fresh subprocess; configurations take turns (round robin), and
each one's time is the best of its ``--repeat`` runs (a configuration that
takes under 5 s runs 5 times per turn, since this machine's noise is a few
tenths of a second whatever the length of the run), its
peak memory is the largest resident set of any process of the run (from
``wait4``). In one more, untimed run of each cold build the process tree is
sampled from ``/proc`` to find the peak of each jaxcheck worker, compared with
a bare ``import jax`` process. Results go to
``benchmarks/results.md`` (a markdown table per size, then the scaling).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from timing import compile_package

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROGRAMS = HERE / "programs"  # what the benchmark runs in its own processes
PYTHON = sys.executable
ZYGOTE_MODULE = "sphinx_jaxcheck.worker.zygote"

# -- the corpus ------------------------------------------------------------------


def block_code(doc: int, block: int) -> str:
    """One block: a jitted computation and its jaxpr, different in every block."""
    a = 1 + (doc * 7 + block) % 13
    n = 8 + (doc * 3 + block * 5) % 24
    ops = ["jnp.sin", "jnp.cos", "jnp.tanh", "jnp.exp"]
    first, second = ops[(doc + block) % 4], ops[(doc + 2 * block + 1) % 4]
    name = f"step_{doc}_{block}"
    return textwrap.dedent(
        f"""\
        import jax
        import jax.numpy as jnp

        def {name}(x):
            y = {first}(x) * {a}.0 + {second}(x) ** 2
            return jnp.cumsum(y)[-1] - y.max() / {a + 1}.0

        x = jnp.arange({n}, dtype=jnp.float32) / {n}.0
        print(jax.jit({name})(x))
        print(jax.make_jaxpr({name})(x))
        """
    )


@dataclass(frozen=True)
class Corpus:
    """Blocks per document, and what each block prints."""

    code: list[list[str]]
    output: list[list[str]]


def make_corpus(docs: int, blocks: int, work: Path) -> Corpus:
    """Generate the code, and the exact expectations by running it once."""
    code = [[block_code(d, b) for b in range(blocks)] for d in range(docs)]
    source, target = work / "corpus.json", work / "outputs.json"
    source.write_text(json.dumps(code))
    subprocess.run([PYTHON, PROGRAMS / "capture.py", source, target], check=True, env=worker_env())
    flat = iter(json.loads(target.read_text()))
    return Corpus(code, [[next(flat) for _ in range(blocks)] for _ in range(docs)])


def commented(output: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in output.rstrip("\n").split("\n"))


def page(title: str, body: list[str]) -> str:
    prose = (
        "This page traces a small function, compiles it with `jax.jit` and prints "
        "its jaxpr. The comment under each block is what it prints."
    )
    return f"# {title}\n\n{prose}\n\n" + "\n\n".join(body) + "\n"


def write_project(root: Path, conf: str, pages: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / "conf.py").write_text(conf)
    (root / "index.md").write_text(
        "# Corpus\n\n```{toctree}\n:maxdepth: 1\n\n" + "\n".join(pages) + "\n```\n"
    )
    for name, text in pages.items():
        (root / f"{name}.md").write_text(text)
    return root


MD_CONF = 'extensions = ["myst_parser"{extra}]\nexclude_patterns = ["_build"]\n{more}'


def pages_of(corpus: Corpus, render: Callable[[str, str], str]) -> dict[str, str]:
    """One page per document, each block rendered from its code and expected output."""
    return {
        f"doc{d:03d}": page(
            f"Document {d}",
            [render(code, out) for code, out in zip(blocks, corpus.output[d], strict=True)],
        )
        for d, blocks in enumerate(corpus.code)
    }


def jaxcheck_project(corpus: Corpus, root: Path) -> Path:
    pages = pages_of(corpus, lambda code, out: f"```{{jaxcheck}}\n{code}\n{commented(out)}\n```")
    return write_project(root, MD_CONF.format(extra=', "sphinx_jaxcheck"', more=""), pages)


def plain_project(corpus: Corpus, root: Path) -> Path:
    pages = pages_of(corpus, lambda code, out: f"```python\n{code}\n{commented(out)}\n```")
    return write_project(root, MD_CONF.format(extra="", more=""), pages)


def doctest_project(corpus: Corpus, root: Path) -> Path:
    pages = pages_of(
        corpus, lambda code, out: f"```{{testcode}}\n{code}```\n\n```{{testoutput}}\n{out}```"
    )
    return write_project(root, MD_CONF.format(extra=', "sphinx.ext.doctest"', more=""), pages)


NOTEBOOK_HEADER = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  name: python3
---
"""


def mystnb_project(corpus: Corpus, root: Path) -> Path:
    pages = {}
    for d, blocks in enumerate(corpus.code):
        body = [f"```{{code-cell}} ipython3\n{code}```" for code in blocks]
        pages[f"doc{d:03d}"] = NOTEBOOK_HEADER + page(f"Document {d}", body)
    conf = (
        'extensions = ["myst_nb"]\n'
        'exclude_patterns = ["_build"]\n'
        'nb_execution_mode = "force"\n'
        "nb_execution_timeout = 600\n"
    )
    return write_project(root, conf, pages)


# -- measuring ---------------------------------------------------------------------


def worker_env() -> dict[str, str]:
    env = dict(os.environ)
    # Like an installed package, ours is imported from bytecode after the first run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _kb(value: str | None) -> int:
    return int(value.split()[0]) if value else 0


class TreeSampler(threading.Thread):
    """Samples the process tree under ``root`` for per-process peaks and the total."""

    def __init__(self, root: int, every: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.root, self.every = root, every
        self.peaks: dict[int, int] = {}  # pid -> VmHWM kB
        self.commands: dict[int, str] = {}
        self.parents: dict[int, int] = {}
        self.total_peak = 0  # largest sum of VmRSS, kB
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            self.sample()
            self.stopped.wait(self.every)

    def sample(self) -> None:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        tree, frontier = {self.root}, [self.root]
        while frontier:
            pid = frontier.pop()
            for child, parent in parents.items():
                if parent == pid and child not in tree:
                    tree.add(child)
                    frontier.append(child)
        total = 0
        for pid in tree:
            status = _status(pid)
            if not status:
                continue
            self.parents[pid] = parents.get(pid, 0)
            self.peaks[pid] = max(self.peaks.get(pid, 0), _kb(status.get("VmHWM")))
            total += _kb(status.get("VmRSS"))
            if pid not in self.commands:
                try:
                    self.commands[pid] = (
                        Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                    )
                except OSError:
                    self.commands[pid] = ""
        self.total_peak = max(self.total_peak, total)

    def _zygotes(self) -> set[int]:
        # Forked children share the zygote's command line: the zygote is the one whose parent
        # is not.
        marked = {pid for pid, cmd in self.commands.items() if ZYGOTE_MODULE in cmd}
        return {pid for pid in marked if self.parents.get(pid) not in marked}

    def worker_peaks(self) -> list[int]:
        """Peaks of the children of jaxcheck zygotes (one per session run)."""
        zygotes = self._zygotes()
        return [kb for pid, kb in self.peaks.items() if self.parents.get(pid) in zygotes]

    def zygote_peaks(self) -> list[int]:
        return [self.peaks[pid] for pid in self._zygotes()]


@dataclass
class Run:
    """One measured subprocess."""

    seconds: float
    max_rss_kb: int
    total_kb: int
    worker_kb: list[int] = field(default_factory=list)
    zygote_kb: list[int] = field(default_factory=list)
    log: str = ""


def measure(command: Sequence[str], cwd: Path | None = None, sample: bool = False) -> Run:
    """Run a command to the end; its wall time and peak memory."""
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        process = subprocess.Popen(
            list(map(str, command)), cwd=cwd, env=worker_env(), stdout=log, stderr=subprocess.STDOUT
        )
        sampler = TreeSampler(process.pid) if sample else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.stopped.set()
            sampler.join()
        log.seek(0)
        text = log.read().decode(errors="replace")
    if process.returncode != 0:
        raise SystemExit(
            f"benchmark command failed ({process.returncode}): {' '.join(map(str, command))}\n"
            f"{text[-4000:]}"
        )
    return Run(
        seconds,
        usage.ru_maxrss,
        sampler.total_peak if sampler else 0,
        sampler.worker_peaks() if sampler else [],
        sampler.zygote_peaks() if sampler else [],
        text,
    )


def best(runs: list[Run]) -> Run:
    fastest = min(runs, key=lambda r: r.seconds)
    fastest.max_rss_kb = max(r.max_rss_kb for r in runs)
    fastest.total_kb = max(r.total_kb for r in runs)
    fastest.worker_kb = [kb for r in runs for kb in r.worker_kb]
    fastest.zygote_kb = [kb for r in runs for kb in r.zygote_kb]
    return fastest


# Noise of a few tenths of a second would decide a short run's ratio: run it more often.
SHORT_SECONDS = 5.0
SHORT_RUNS = 5


def sphinx(src: Path, out: Path, *args: str) -> list[str]:
    return [
        PYTHON,
        "-m",
        "sphinx",
        "-E",
        "-q",
        *args,
        str(src),
        str(out),
        "-d",
        str(out / ".doctrees"),
    ]


@dataclass
class Configuration:
    """One way of building the corpus, run once per round."""

    name: str
    command: list[Any]
    shown: str
    prepare: Callable[[], None] | None = None
    sample: bool = False  # also measure per-worker memory (in an extra, untimed run)

    def run(self, sample: bool = False) -> Run:
        if self.prepare:
            self.prepare()
        return measure(self.command, sample=sample)


@dataclass
class Result:
    name: str
    command: str
    run: Run


def bench_size(
    docs: int, blocks: int, repeat: int, skip: set[str], work: Path
) -> tuple[list[Result], dict[str, float]]:
    """Every configuration on one corpus size."""
    work = work / f"d{docs}_b{blocks}"
    work.mkdir(parents=True)
    print(f"== {docs} documents x {blocks} blocks: generating the corpus", flush=True)
    corpus = make_corpus(docs, blocks, work)
    jaxcheck = jaxcheck_project(corpus, work / "jaxcheck")
    plain = plain_project(corpus, work / "plain")
    out = work / "out"
    fresh_cache = work / "cache"

    def empty_cache() -> None:
        shutil.rmtree(fresh_cache, ignore_errors=True)

    configurations = [
        Configuration(
            "floor (one python process)",
            [PYTHON, PROGRAMS / "floor.py", work / "corpus.json"],
            "python floor.py",
        ),
        Configuration(
            "floor pinned to one core",
            [PYTHON, PROGRAMS / "floor.py", work / "corpus.json", "--one-core"],
            "python floor.py --one-core",
        ),
        Configuration(
            "jaxcheck cold, 1 worker",
            sphinx(
                jaxcheck,
                out / "cold1",
                "-b",
                "html",
                "-D",
                "jaxcheck_workers=1",
                "-D",
                f"jaxcheck_cache_dir={fresh_cache}",
            ),
            "sphinx-build -E -D jaxcheck_workers=1 (empty cache)",
            prepare=empty_cache,
            sample=True,
        ),
        Configuration(
            "jaxcheck cold, -j 2",
            sphinx(
                jaxcheck,
                out / "cold2",
                "-b",
                "html",
                "-j",
                "2",
                "-D",
                "jaxcheck_workers=2",
                "-D",
                f"jaxcheck_cache_dir={fresh_cache}",
            ),
            "sphinx-build -E -j 2 -D jaxcheck_workers=2 (empty cache)",
            prepare=empty_cache,
            sample=True,
        ),
        # The plain build beside the warm one: the warm target is a ratio of the two.
        Configuration(
            "plain Sphinx build",
            sphinx(plain, out / "plain", "-b", "html"),
            "sphinx-build -E (code blocks)",
        ),
        # Right after a cold build, whose cache it reuses.
        Configuration(
            "jaxcheck warm cache, -E",
            sphinx(jaxcheck, out / "warm", "-b", "html", "-D", f"jaxcheck_cache_dir={fresh_cache}"),
            "sphinx-build -E (cache of the cold build)",
        ),
    ]
    if "doctest" not in skip:
        doctest = doctest_project(corpus, work / "doctest")
        configurations.append(
            Configuration(
                "sphinx.ext.doctest",
                sphinx(doctest, out / "doctest", "-b", "doctest"),
                "sphinx-build -E -b doctest",
            )
        )
    if "mystnb" not in skip:
        mystnb = mystnb_project(corpus, work / "mystnb")
        configurations.append(
            Configuration(
                "MyST-NB, force",
                sphinx(mystnb, out / "mystnb", "-b", "html"),
                'sphinx-build -E (nb_execution_mode="force")',
            )
        )
    # Round robin, so that a machine getting slower or faster during the run
    # affects every configuration alike, and the ratios stay fair.
    measured: dict[str, list[Run]] = {c.name: [] for c in configurations}
    for attempt in range(repeat):
        print(f"   round {attempt + 1} of {repeat}", flush=True)
        for configuration in configurations:
            runs = measured[configuration.name]
            runs.append(configuration.run())
            if runs[-1].seconds < SHORT_SECONDS:
                runs.extend(configuration.run() for _ in range(SHORT_RUNS - 1))
    # Memory from one more run of each sampled configuration: reading /proc every
    # 20 ms takes CPU from the workers, so the timed runs are not sampled.
    for configuration in configurations:
        if configuration.sample:
            measured[configuration.name].append(
                replace(configuration.run(sample=True), seconds=float("inf"))
            )
    results = []
    # Shown with the references (floor, plain) first, whatever order they ran in.
    listed = sorted(configurations, key=lambda c: not c.name.startswith(("floor", "plain")))
    for configuration in listed:
        result = best(measured[configuration.name])
        results.append(Result(configuration.name, configuration.shown, result))
        print(
            f"   {configuration.name:<28} {result.seconds:7.2f} s  "
            f"{result.max_rss_kb / 1024:6.0f} MB",
            flush=True,
        )
    bare = best([measure([PYTHON, "-c", "import jax, jax.numpy"]) for _ in range(repeat)])
    overhead = [session_overhead(docs) for _ in range(repeat)]
    return results, {
        "bare_import_jax_kb": bare.max_rss_kb,
        "session_ms": min(o[0] for o in overhead),
        "session_jax_ms": min(o[1] for o in overhead),
        "zygote_start_s": min(o[2] for o in overhead),
    }


def session_overhead(sessions: int) -> tuple[float, float, float]:
    """Milliseconds per one-block session (plain Python; first jax op), and zygote start seconds."""
    run = measure([PYTHON, str(PROGRAMS / "session_overhead.py"), str(max(sessions, 8))])
    plain, with_jax, start = (float(x) for x in run.log.split())
    return plain, with_jax, start


# -- reporting ---------------------------------------------------------------------

TARGETS = {
    "jaxcheck cold, 1 worker": ("floor+plain", 1.25, "<="),
    "jaxcheck cold, -j 2": ("floor+plain", 0.7, "<="),
    "jaxcheck warm cache, -E": ("plain", 1.1, "<="),
}


def table(docs: int, blocks: int, results: list[Result], extra: dict[str, float]) -> str:
    by = {r.name: r.run for r in results}
    floor, plain = by["floor (one python process)"].seconds, by["plain Sphinx build"].seconds
    base = floor + plain
    cold2 = by["jaxcheck cold, -j 2"].seconds
    lines = [
        f"### {docs} documents x {blocks} blocks ({docs * blocks} blocks)",
        "",
        "| configuration | command | time (s) | x (floor + plain) | x plain | "
        "peak RSS (MB) | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in results:
        target = ""
        if r.name in TARGETS:
            of, limit, _ = TARGETS[r.name]
            ratio = r.run.seconds / (base if of == "floor+plain" else plain)
            target = f"<= {limit} x {of}: {'met' if ratio <= limit else 'MISSED'}"
        if r.name.startswith("MyST-NB"):
            ratio = r.run.seconds / cold2
            target = f">= 3 x jaxcheck -j 2: {ratio:.1f} x, {'met' if ratio >= 3 else 'MISSED'}"
        lines.append(
            f"| {r.name} | `{r.command}` | {r.run.seconds:.2f} | {r.run.seconds / base:.2f} | "
            f"{r.run.seconds / plain:.2f} | {r.run.max_rss_kb / 1024:.0f} | {target} |"
        )
    sessions = docs  # one session per document in this corpus
    if "floor pinned to one core" in by:
        one_core = by["floor pinned to one core"].seconds
        limit = one_core / 2 + plain
        fresh = extra["zygote_start_s"] + sessions * extra["session_jax_ms"] / 1000 / 2
        lines += [
            "",
            f"XLA compiles on several threads, so the floor gains {one_core / floor:.2f} x from a "
            "second core. Two workers sharing two cores compare with the floor pinned to one core: "
            f"half of it plus the plain build is {one_core:.2f} / 2 + {plain:.2f} "
            f"= {limit:.2f} s = **{limit / base:.2f} x (floor + plain)**. "
            "A fresh process per session adds at least the zygote's start and each "
            f"session's first jax operation, {extra['zygote_start_s']:.2f} + {sessions} x "
            f"{extra['session_jax_ms'] / 1000:.3f} / 2 = {fresh:.2f} s, for a reference of "
            f"{limit + fresh:.2f} s = **{(limit + fresh) / base:.2f} x (floor + plain)**; "
            f"the cold `-j 2` build took {cold2 / (limit + fresh):.2f} x that.",
        ]
    lines += [
        "",
        "Per-session overhead (one worker, one-block sessions, each a fresh fork of the warm "
        "zygote, compiled programs shared through the persistent XLA cache as in a build): "
        f"{extra['session_ms']:.0f} ms for `print(1)`, {extra['session_jax_ms']:.0f} ms for "
        "a first jax operation (starting the CPU backend); the zygote starts (imports jax) in "
        f"{extra['zygote_start_s']:.2f} s.",
    ]
    bare = extra["bare_import_jax_kb"]
    workers = by["jaxcheck cold, 1 worker"].worker_kb + by["jaxcheck cold, -j 2"].worker_kb
    zygotes = by["jaxcheck cold, 1 worker"].zygote_kb + by["jaxcheck cold, -j 2"].zygote_kb
    if workers:
        worst = max(workers)
        lines += [
            "",
            f"Memory: a bare `import jax` process peaks at {bare / 1024:.0f} MB; "
            f"the zygote at {max(zygotes, default=0) / 1024:.0f} MB; "
            f"the largest worker (one session, {len(workers)} sampled) at {worst / 1024:.0f} MB, "
            f"**{(worst - bare) / 1024:.0f} MB above bare `import jax`** (target <= 150 MB: "
            f"{'met' if worst - bare <= 150 * 1024 else 'MISSED'}). Whole process tree of the "
            f"`-j 2` build at its peak: {by['jaxcheck cold, -j 2'].total_kb / 1024:.0f} MB (sum of "
            "resident sets, shared pages counted twice).",
        ]
    return "\n".join(lines)


def scaling(sizes: list[tuple[int, list[Result]]], blocks: int) -> str:
    names = [r.name for r in sizes[0][1]]
    head = (
        "| configuration | "
        + " | ".join(f"{d} docs (s)" for d, _ in sizes)
        + " | s per block at "
        + f"{sizes[-1][0]} docs |"
    )
    lines = ["### Scaling", "", head, "|---|" + "---:|" * (len(sizes) + 1)]
    for name in names:
        cells = []
        for _, results in sizes:
            match = [r.run.seconds for r in results if r.name == name]
            cells.append(f"{match[0]:.2f}" if match else "")
        last = [r.run.seconds for r in sizes[-1][1] if r.name == name]
        per_block = f"{last[0] / (sizes[-1][0] * blocks) * 1000:.0f} ms" if last else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {per_block} |")
    return "\n".join(lines)


def machine() -> str:
    import importlib.metadata as md

    versions = ", ".join(
        f"{p} {md.version(p)}"
        for p in ("jax", "jaxlib", "sphinx", "myst-parser", "myst-nb")
        if _has(p)
    )
    load = os.getloadavg()[0]
    return (
        f"{os.cpu_count()} CPUs ({platform.machine()}), Python {platform.python_version()}, "
        f"{versions}; load average {load:.1f} at the end of the run."
    )


def _has(package: str) -> bool:
    import importlib.metadata as md

    try:
        md.version(package)
        return True
    except md.PackageNotFoundError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--docs", type=int, nargs="+", default=[16], help="corpus sizes, in documents (default: 16)"
    )
    parser.add_argument("--blocks", type=int, default=8, help="blocks per document (default: 8)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each configuration; the fastest counts (default: 3)",
    )
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["mystnb", "doctest"],
        help="configurations to leave out",
    )
    parser.add_argument(
        "--output", type=Path, default=HERE / "results.md", help="where to write the table"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the generated projects (printed path)"
    )
    args = parser.parse_args(argv)
    compile_package()
    work = Path(tempfile.mkdtemp(prefix="jaxcheck-bench-"))
    try:
        sizes = []
        extras = {}
        for docs in args.docs:
            results, extra = bench_size(docs, args.blocks, args.repeat, set(args.skip), work)
            sizes.append((docs, results))
            extras[docs] = extra
    finally:
        if args.keep:
            print(f"projects kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    parts = [
        "# Benchmark results",
        "",
        f"`{command.strip()}` on {machine()} Configurations took turns; times are the best of "
        f"{args.repeat} run(s) ({args.repeat * SHORT_RUNS} for runs under {SHORT_SECONDS:g} s); "
        "ratios are from the same run.",
        "",
    ]
    for docs, results in sizes:
        parts += [table(docs, args.blocks, results, extras[docs]), ""]
    if len(sizes) > 1:
        parts += [scaling(sizes, args.blocks), ""]
    args.output.write_text("\n".join(parts))
    print("\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
