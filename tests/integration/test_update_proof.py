"""What ``jaxcheck update`` writes, it can prove: real workers, arbitrary outputs.

* whatever bytes a block prints, after update each block either reads back and
  verifies, or is left byte for byte (hypothesis, real workers);
* MLIR locations name the block, never the worker's own files.

The racing editor and the alignment's step limit need no worker: see
``tests/unit/test_edits.py`` and ``tests/unit/test_update_plan.py``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import rules_of
from sphinx_jaxcheck.model import Block, BlockOptions, Program, Status
from sphinx_jaxcheck.rewrite.edits import digest
from sphinx_jaxcheck.rewrite.update import update_sources
from sphinx_jaxcheck.run.pool import WorkerSettings, run_sessions
from sphinx_jaxcheck.run.sessions import check_documents
from sphinx_jaxcheck.worker.protocol import RunSession

WORKERS = WorkerSettings(workers=2)
FENCE = "```{jaxcheck}"


def rerun(documents):  # type: ignore[no-untyped-def]
    """Update's second run, in fresh real workers."""
    return check_documents(documents, WORKERS).verdicts


def page(outputs: list[bytes]) -> str:
    """A MyST page whose blocks print these bytes (decoded as Python would), each expecting
    'stale'."""
    lines = ["# Bytes", ""]
    for n, data in enumerate(outputs):
        write = (
            f'sys.stdout.write(bytes.fromhex("{data.hex()}").decode("utf-8", "surrogateescape"))'
        )
        if n % 2:
            lines += [FENCE, ">>> import sys", f">>> _ = {write}", "stale", "```", ""]
        else:
            lines += [FENCE, "import sys", write, "", "# stale", "```", ""]
    return "\n".join(lines)


def blocks_in(path: Path) -> list[Block]:
    """The blocks of a page as a reader finds them in its current bytes."""
    data = path.read_bytes()
    lines = data.decode("utf-8").split("\n")
    found, start = [], None
    for n, line in enumerate(lines):
        if line == FENCE:
            start = n + 1
        elif line == "```" and start is not None:
            body = tuple(textwrap.dedent("\n".join(lines[start:n])).split("\n"))
            parsed = parse_body(body)
            found.append(
                Block(
                    "bytes",
                    len(found),
                    str(path),
                    start + 1,
                    body,
                    BlockOptions(),
                    parsed.expectations,
                    parsed.program(f"<b{len(found)}>"),
                    parsed.error,
                    digest(data),
                )
            )
            start = None
    return found


def check(path: Path) -> list[tuple[Block, object]]:
    blocks = blocks_in(path)
    verdicts = check_documents({"bytes": blocks}, WORKERS).verdicts["bytes"]
    return list(zip(blocks, verdicts, strict=True))


NASTY = st.sampled_from(
    [
        b"\r50%\r100%\n",
        b"\x1b[31mred\x1b[0m\n",
        b"a\x00b\n",
        b"```\n",
        b"x\n>>> y\n",
        b"# >>> z\n",
        b"\xe2\x80\xa8\n",
        b"\xff\xfe\n",
        b"ok\n",
        b"\t\n",
    ]
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.one_of(st.binary(max_size=12), NASTY), min_size=2, max_size=3))
@example([b"fine\n", b"```\n", b"progress\r\n"])
def test_after_update_every_block_reads_back_and_verifies_or_is_untouched(
    tmp_path: Path, outputs: list[bytes]
) -> None:
    path = tmp_path / "bytes.md"
    path.write_text(page(outputs), encoding="utf-8")
    before = blocks_in(path)
    update_sources(check(path), kinds=rules_of, rerun=rerun)
    after = blocks_in(path)
    assert len(after) == len(before)  # no fence closed or opened
    changed = [b for b, a in zip(before, after, strict=True) if a.body != b.body]
    for block in after:
        assert block.error is None, block.error
    if changed:
        verdicts = dict((b.index, v) for b, v in check(path))
        for block in changed:
            assert verdicts[block.index].status is Status.VERIFIED  # type: ignore[attr-defined]


def test_control_characters_are_refused_by_name_and_block(tmp_path: Path) -> None:
    path = tmp_path / "bytes.md"
    path.write_text(
        page([b"\r50%\r100%\n", b"a\x00b\n", b"\x1b[31mred\x1b[0m\n"]), encoding="utf-8"
    )
    data = path.read_bytes()
    report = update_sources(check(path), kinds=rules_of, rerun=rerun)
    assert path.read_bytes() == data
    reasons = [why for _, _, why in report.refused]
    assert len(reasons) == 3
    assert reasons[0].startswith("block 'bytes[1]': the new output holds control characters")
    assert "'\\r' (carriage return)" in reasons[0]
    assert "'\\x00' (NUL)" in reasons[1] and reasons[1].startswith("block 'bytes[2]'")
    assert "'\\x1b' (ESC, which starts an ANSI escape sequence)" in reasons[2]


def test_mlir_locations_name_the_block_and_never_the_worker(tmp_path: Path) -> None:
    code = (
        "import jax, jax.numpy as jnp\n"
        "print(jax.jit(lambda x: jnp.sin(x) * 2).lower(1.0).as_text(debug_info=True))\n"
    )
    block = Block(
        "mlir",
        0,
        str(tmp_path / "m.md"),
        1,
        tuple(code.splitlines()),
        BlockOptions(),
        (),
        Program(code, "<mlir[1]>"),
    )
    outcome = run_sessions({"s": RunSession("s", (), (block.program,))}, WORKERS)["s"].items[0]
    assert '"<mlir[1]>":2:' in outcome.stdout
    assert "sphinx_jaxcheck" not in outcome.stdout and "<frozen" not in outcome.stdout
