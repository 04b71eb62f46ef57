"""Run a corpus once and record what each block prints: the exact expected outputs.

    python capture.py CORPUS.json OUTPUTS.json

CORPUS.json holds the code of each document's blocks; each document's blocks
share one namespace, as a jaxcheck session does. OUTPUTS.json receives every
block's output, in order.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys


def main(corpus_file: str, outputs_file: str) -> None:
    with open(corpus_file) as source:
        corpus: list[list[str]] = json.load(source)
    outputs = []
    for blocks in corpus:
        namespace = {"__name__": "__main__"}
        for code in blocks:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(code, "<block>", "exec"), namespace)
            outputs.append(buffer.getvalue())
    with open(outputs_file, "w") as target:
        json.dump(outputs, target)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
