"""What checking in another interpreter costs: the same check, side by side.

    python benchmarks/second_interpreter.py [--repeat 5] [--documents 4] [--blocks 6]

Times ``jaxcheck check --no-cache`` of one generated corpus (blocks whose output
is the same in every JAX release) in turns (round robin, so a machine that
drifts slower or faster skews no ratio):

* ``default``: the workers run this interpreter (jax 0.10.2);
* ``other, same jax``: ``--python`` a virtual environment with jax 0.10.2,
  so the difference is the other interpreter alone (asking it what it has,
  starting its workers);
* ``other, jax 0.4.35``: ``--python`` a virtual environment with jax 0.4.35,
  the check the drift-history page needs.

The environments are made once under ``.tox/`` by ``tools/jax_env.py``. Prints a
markdown table of median times and the ratio of each to ``default``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

from timing import median_table, timed

REPO = Path(__file__).parent.parent
BLOCK = """
```{{jaxcheck}}
import jax.numpy as jnp
print(int((jnp.arange({n}) * 2).sum()))
# {total}
```
"""


def make_corpus(folder: Path, documents: int, blocks: int) -> None:
    """``documents`` pages of ``blocks`` blocks each, verified by every JAX release."""
    (folder / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_jaxcheck"]\nexclude_patterns = ["_build"]\n'
    )
    names = [f"page{d}" for d in range(documents)]
    toc = "```{toctree}\n" + "\n".join(names) + "\n```\n"
    (folder / "index.md").write_text("# Corpus\n\n" + toc)
    for name in names:
        body = "".join(BLOCK.format(n=n + 1, total=n * (n + 1)) for n in range(blocks))
        (folder / f"{name}.md").write_text(f"# {name}\n{body}")


def environment(version: str) -> Path:
    spec = importlib.util.spec_from_file_location("jax_env", REPO / "tools" / "jax_env.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Path(module.ensure(REPO / ".tox" / f"jax-{version}", version))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--repeat", type=int, default=5)
    options.add_argument("--documents", type=int, default=4)
    options.add_argument("--blocks", type=int, default=6)
    args = options.parse_args()
    pythons = {
        "default": None,
        "other, same jax": environment("0.10.2"),
        "other, jax 0.4.35": environment("0.4.35"),
    }
    runs: dict[str, list[float]] = {name: [] for name in pythons}
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        corpus.mkdir()
        make_corpus(corpus, args.documents, args.blocks)
        for _ in range(args.repeat):
            for name, python in pythons.items():
                extra = ["--python", str(python)] if python else []
                runs[name].append(
                    timed(
                        [
                            sys.executable,
                            "-m",
                            "sphinx_jaxcheck",
                            "check",
                            str(corpus),
                            "--no-cache",
                            *extra,
                        ]
                    )
                )
    print(
        f"{args.documents} documents x {args.blocks} blocks, {args.repeat} turns, median seconds\n"
    )
    print(median_table(runs, "default"))


if __name__ == "__main__":
    main()
