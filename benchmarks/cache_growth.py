"""How big the caches get over 20 builds whose blocks keep changing, with and without a size cap.

    python benchmarks/cache_growth.py [--builds 20] [--pages 4] [--cap-mb 0.1]

Two copies of a small project are built side by side, build after build. Before
each build every page's block changes (a new constant in a jitted function), as
pages do while docs are written: each build stores new session outcomes and new
compiled XLA programs. One copy has no practical cap (``jaxcheck_cache_max_mb``
far above what it reaches), the other ``--cap-mb``: its outcomes are pruned to
their share after every build, and JAX keeps its compiled programs under
theirs. Prints a markdown table of the cache folder's size after each build
(outcomes + compiled programs), as ``jaxcheck cache info`` counts it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))  # this checkout's package

from sphinx_jaxcheck.cache.size import human_size, usage

REPO = Path(__file__).parent.parent  # ... also in the builds

PAGE = """# Page {page}

```{{jaxcheck}}
import jax
import jax.numpy as jnp

@jax.jit
def step(x):
    return jnp.tanh(x * {constant}) + jnp.sum(x ** 2) / {constant}

print(step(jnp.arange(4.0)).shape)

# (4,)
```
"""


def write(root: Path, pages: int, build: int, cap_mb: float) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_jaxcheck"]\nexclude_patterns = ["_build"]\n'
        f"jaxcheck_cache_max_mb = {cap_mb}\njaxcheck_workers = 2\n"
    )
    toctree = "\n".join(f"   page{n}" for n in range(pages))
    (root / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{toctree}\n")
    for n in range(pages):
        (root / f"page{n}.md").write_text(
            PAGE.format(page=n, constant=f"{1 + build * pages + n}.5")
        )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--builds", type=int, default=20)
    options.add_argument("--pages", type=int, default=4)
    options.add_argument("--cap-mb", type=float, default=0.1)
    args = options.parse_args()
    configurations = {"no cap": 100_000.0, f"cap {args.cap_mb:g} MB": args.cap_mb}
    with tempfile.TemporaryDirectory(prefix="jaxcheck-cache-growth-") as work:
        roots = {name: Path(work) / f"project{i}" for i, name in enumerate(configurations)}
        print("| build | " + " | ".join(configurations) + " |")
        print("|---|" + "---|" * len(configurations))
        for build in range(1, args.builds + 1):
            sizes = []
            for name, cap in configurations.items():  # side by side, build after build
                root = roots[name]
                write(root, args.pages, build, cap)
                done = subprocess.run(
                    [sys.executable, "-m", "sphinx_jaxcheck", "check", str(root)],
                    capture_output=True,
                    text=True,
                    env={**os.environ, "PYTHONPATH": str(REPO)},
                )
                if done.returncode != 0:
                    sys.exit(f"build {build} of {name!r} failed:\n{done.stdout}{done.stderr}")
                found = usage(root / ".jaxcheck_cache")
                sizes.append(
                    f"{human_size(found.size())} ({found.count('outcome')} outcomes, "
                    f"{human_size(found.compiled)} compiled)"
                )
            print(f"| {build} | " + " | ".join(sizes) + " |", flush=True)


if __name__ == "__main__":
    main()
