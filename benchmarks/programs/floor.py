"""The floor: one Python process that imports jax once and runs every block of a corpus.

    python floor.py CORPUS.json [--one-core]

With ``--one-core`` the process may use only one core's worth of CPU (XLA
compiles on several threads otherwise).
"""

from __future__ import annotations

import json
import os
import sys


def main(corpus_file: str, one_core: bool) -> None:
    if one_core:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with open(corpus_file) as source:
        corpus: list[list[str]] = json.load(source)
    for blocks in corpus:
        namespace = {"__name__": "__main__"}
        for code in blocks:
            exec(compile(code, "<block>", "exec"), namespace)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] == ["--one-core"])
