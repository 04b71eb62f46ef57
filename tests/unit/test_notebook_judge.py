"""A notebook cell's verdict: its stored outputs against a fresh run's, after the
normalizers (judge/notebooks.py; guide/notebooks). Each normalizer is shown to remove its
noise, and only when it is on."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.judge.notebooks import NORMALIZERS, comparable, html_text
from sphinx_jaxcheck.judge.verdict import judge
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    CellOutput,
    CompareMode,
    FailureKind,
    NotebookCell,
    Outcome,
    OutputMode,
    Program,
    RaisedException,
    Status,
)

ALL = tuple(NORMALIZERS)
DEFAULTS = BlockOptions()


def stream(text: str, name: str = "stdout") -> CellOutput:
    return CellOutput("stream", name, text)


def shown(text: str, kind: str = "execute_result", **data: str) -> CellOutput:
    return CellOutput(kind, "", text, (("text/plain", text), *data.items()))


def cell_block(
    stored: tuple[CellOutput, ...] | None,
    *,
    normalizers: tuple[str, ...] = ALL,
    raises: bool = False,
    options: BlockOptions = DEFAULTS,
    images: bool = False,
) -> Block:
    return Block(
        "nb",
        0,
        "nb.ipynb",
        40,
        ("code",),
        options,
        (),
        Program("code", "nb.ipynb:cell 3"),
        kind=NotebookCell(3, stored, raises, normalizers, images=images),
        placed=False,
    )


def ran(*outputs: CellOutput, raised: str | None = None) -> Outcome:
    exception = (
        RaisedException(raised, f"{raised}: boom", f"Traceback\n{raised}: boom") if raised else None
    )
    return Outcome(outputs=outputs, exception=exception)


def status(stored: tuple[CellOutput, ...] | None, outcome: Outcome, **options: object) -> Status:
    return judge(cell_block(stored, **options), outcome).status  # type: ignore[arg-type]


def test_the_same_outputs_verify_and_other_ones_are_stale_with_a_diff_at_the_cells_line() -> None:
    assert status((stream("1\n"), shown("2")), ran(stream("1\n"), shown("2"))) is Status.VERIFIED
    verdict = judge(cell_block((stream("1\n"),)), ran(stream("2\n")))
    assert verdict.status is Status.STALE
    assert verdict.drifts[0].line == 40
    assert "-1\n+2" in verdict.drifts[0].diff
    assert verdict.outputs == (stream("2\n"),)


def test_an_output_more_or_less_is_stale() -> None:
    assert status((shown("2"),), ran(shown("2"), stream("x\n"))) is Status.STALE
    assert status((shown("2"), stream("x\n")), ran(shown("2"))) is Status.STALE


def test_a_stream_split_in_two_writes_is_the_same_stream() -> None:
    assert status((stream("a\nb\n"),), ran(stream("a\n"), stream("b\n"))) is Status.VERIFIED


def test_stderr_is_compared_and_told_apart_from_stdout() -> None:
    assert status((stream("w\n", "stderr"),), ran(stream("w\n"))) is Status.STALE
    assert comparable((stream("w\n", "stderr"),), ALL) == ["[stderr]", "w"]


@pytest.mark.parametrize(
    ("normalizer", "stored", "fresh"),
    [
        (
            "ansi",
            shown("{ lambda ; a:f32[]. }"),
            shown("{ \x1b[34;1mlambda \x1b[39;22m; a:f32[]. }"),
        ),
        (
            "addresses",
            shown("<function f at 0x10f4e1b20>"),
            shown("<function f at 0x7f8b02f0e480>"),
        ),
        (
            "timeit",
            stream("10 loops, best of 3: 6.75 ms per loop\n"),
            stream("3.2 ms ± 14 μs per loop (mean ± std. dev. of 7 runs, 100 loops each)\n"),
        ),
        (
            "cell-files",
            stream("<ipython-input-4-f510dde58e22>:3: UserWarning: x\n", "stderr"),
            stream("/work/nb.ipynb:cell 4:3: UserWarning: x\n", "stderr"),
        ),
    ],
)
def test_each_normalizer_removes_its_noise_and_only_when_on(
    normalizer: str, stored: CellOutput, fresh: CellOutput
) -> None:
    assert status((stored,), ran(fresh)) is Status.VERIFIED
    others = tuple(n for n in ALL if n != normalizer)
    assert status((stored,), ran(fresh), normalizers=others) is Status.STALE


def test_matplotlib_reprs_are_left_out_on_both_sides_whatever_their_number() -> None:
    stored = (shown("<Figure size 432x288 with 1 Axes>", "display_data"),)
    fresh = (
        shown("[<matplotlib.lines.Line2D at 0x7f61a0b2c3d0>]"),
        shown("<Figure size 640x480 with 1 Axes>", "display_data", **{"image/png": "iVBOR"}),
        shown("Text(0.5, 0.92, '3D conv output')"),
    )
    assert status(stored, ran(*fresh)) is Status.VERIFIED
    others = tuple(n for n in ALL if n != "matplotlib")
    assert status(stored, ran(*fresh), normalizers=others) is Status.STALE
    # A value that only looks like a pair of numbers is kept when it is no figure's.
    assert status((shown("(1, 2)"),), ran(shown("(1, 3)"))) is Status.STALE


def test_a_jaxpr_compares_up_to_the_names_of_its_variables() -> None:
    stored = (shown("{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"),)
    renamed = (shown("{ lambda ; x:f32[]. let y:f32[] = sin x in (y,) }"),)
    changed = (shown("{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"),)
    assert status(stored, ran(*renamed)) is Status.VERIFIED
    assert status(stored, ran(*changed)) is Status.STALE
    # Asked for by the cell's options for an output that does not start as a jaxpr.
    text = (stream("jaxpr: { lambda ; a:f32[]. let  in (a,) }\n"),)
    again = (stream("jaxpr: { lambda ; b:f32[]. let in (b,) }\n"),)
    assert status(text, ran(*again)) is Status.STALE
    assert status(text, ran(*again), options=BlockOptions(compare=CompareMode.JAXPR)) is (
        Status.VERIFIED
    )


def test_tolerance_from_the_cells_options() -> None:
    stored, fresh = (shown("0.35355335"),), (shown("0.35355338"),)
    assert status(stored, ran(*fresh)) is Status.STALE
    assert status(stored, ran(*fresh), options=BlockOptions(tolerance=1e-6)) is Status.VERIFIED


def test_an_error_compares_by_name_and_message_and_colabs_placeholder_is_drift() -> None:
    stored = (CellOutput("error", "TypeError", "ignored", (), ("...",)),)
    fresh = (CellOutput("error", "TypeError", "JAX arrays are immutable", (), ("tb",)),)
    verdict = judge(cell_block(stored, raises=True), ran(*fresh, raised="TypeError"))
    assert verdict.status is Status.STALE
    assert "-TypeError: ignored" in verdict.drifts[0].diff
    same = (CellOutput("error", "TypeError", "JAX arrays are immutable", (), ("other tb",)),)
    assert status(same, ran(*fresh, raised="TypeError"), raises=True) is Status.VERIFIED


def test_an_exception_fails_the_cell_unless_it_is_tagged_to_raise() -> None:
    fresh = (CellOutput("error", "ValueError", "boom", (), ("ValueError: boom",)),)
    verdict = judge(cell_block((stream("ok\n"),)), ran(*fresh, raised="ValueError"))
    assert verdict.status is Status.FAILED
    assert "raises-exception" in verdict.problems[0].message
    assert verdict.problems[0].line == 40


def test_nothing_stored_or_output_ignored_is_not_compared_and_skip_is_not_run() -> None:
    assert status(None, ran(shown("1"))) is Status.NOT_COMPARED
    ignored = BlockOptions(output=OutputMode.IGNORE)
    assert status((shown("1"),), ran(shown("2")), options=ignored) is Status.NOT_COMPARED
    skipped = BlockOptions(output=OutputMode.SKIP)
    assert judge(cell_block((shown("1"),), options=skipped), None).status is Status.SKIPPED


def test_a_cell_that_timed_out_fails_whatever_it_stores() -> None:
    outcome = Outcome(failure=FailureKind.TIMEOUT, message="timed out after 60 s")
    assert status((shown("1"),), outcome) is Status.FAILED


def test_html_without_text_is_compared_by_its_text() -> None:
    table = (
        '<div class="colab-df-container"><style>.x{color:red}</style><table><tr><th>a</th>'
        "<th>b</th></tr><tr><td>1</td><td>2</td></tr></table><script>f()</script></div>"
    )
    assert html_text(table) == "a b\n1 2"
    stored = (CellOutput("display_data", "", "", (("text/html", table),)),)
    plain = "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    assert status(stored, ran(CellOutput("display_data", "", "", (("text/html", plain),)))) is (
        Status.VERIFIED
    )


def test_images_are_compared_by_their_bytes_only_when_asked() -> None:
    def figure(png: str) -> CellOutput:
        return shown("<Figure size 640x480 with 1 Axes>", "display_data", **{"image/png": png})

    stored, other = (figure("iVBORw0KGgoA"),), (figure("iVBORw0KGgoB"),)
    assert status(stored, ran(*other)) is Status.VERIFIED
    asked = cell_block(stored, images=True)
    assert judge(asked, ran(*other)).status is Status.STALE
    assert judge(asked, ran(figure("iVBORw0KGgoA\n"))).status is Status.VERIFIED
