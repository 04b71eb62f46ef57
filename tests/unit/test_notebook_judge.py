"""A notebook cell's verdict: its stored outputs against a fresh run's, after the
normalizers (judge/notebooks.py; guide/notebooks). Each normalizer is shown to remove its
noise, and only when it is on."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest

from sphinx_jaxcheck.judge.notebooks import NORMALIZERS, comparable, follow_failures, html_text
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    CellOutput,
    CompareMode,
    FailureKind,
    ImageRule,
    NotebookCell,
    Outcome,
    OutputMode,
    Program,
    RaisedException,
    Status,
    Subtype,
)
from sphinx_jaxcheck.report.findings import findings_of
from sphinx_jaxcheck.report.formats import render
from sphinx_jaxcheck.report.junit import write_junit
from sphinx_jaxcheck.report.merge import merge
from sphinx_jaxcheck.report.records import build_report, checked_summary, summary_line

ALL = tuple(NORMALIZERS)
DEFAULTS = BlockOptions()


def followed(block: Block) -> bool:
    """Whether a block's failures follow an earlier one's, as the check asks its kind."""
    return rules_of(block).follows_failures()


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
    images: ImageRule | None = None,
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


def test_a_stream_stored_with_its_carriage_returns_is_compared_as_jupyter_stores_it() -> None:
    progress = (stream("0/3\r1/3\r3/3 done\n", "stderr"),)
    assert status(progress, ran(stream("3/3 done\n", "stderr"))) is Status.VERIFIED
    assert status(progress, ran(stream("2/3 done\n", "stderr"))) is Status.STALE
    assert status((stream("ab\bc\n"),), ran(stream("ac\n"))) is Status.VERIFIED


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


def matplotlibs(text: str, shows: str, kind: str = "execute_result", **data: str) -> CellOutput:
    """A result of a fresh run whose value the worker saw was of type ``shows``."""
    return CellOutput(kind, "", text, (("text/plain", text), *data.items()), shows=shows)


def test_matplotlib_reprs_lose_what_the_version_changes_and_keep_their_text() -> None:
    stored = (
        shown("[<matplotlib.lines.Line2D at 0x7f61a0b2c3d0>]"),
        shown("Text(0.5,1,'3D conv output')"),
        shown("<AxesSubplot:title={'center':'loss'}, xlabel='step'>"),
        shown("<Figure size 432x288 with 1 Axes>", "display_data"),
    )
    fresh = (
        matplotlibs(
            "[<matplotlib.lines.Line2D at 0x7f0000000010>]", "list[matplotlib.lines.Line2D]"
        ),
        matplotlibs("Text(0.5, 1.0, '3D conv output')", "matplotlib.text.Text"),
        matplotlibs(
            "<Axes: title={'center': 'loss'}, xlabel='step'>", "matplotlib.axes._axes.Axes"
        ),
        matplotlibs(
            "<Figure size 640x480 with 1 Axes>",
            "matplotlib.figure.Figure",
            "display_data",
            **{"image/png": "iVBOR"},
        ),
    )
    assert status(stored, ran(*fresh)) is Status.VERIFIED
    others = tuple(n for n in ALL if n != "matplotlib")
    assert status(stored, ran(*fresh), normalizers=others) is Status.STALE


def test_a_changed_title_label_or_number_of_axes_is_stale() -> None:
    title = "matplotlib.text.Text"
    stored = (shown("Text(0.5, 1.0, 'old')"),)
    assert status(stored, ran(matplotlibs("Text(0.5, 1.0, 'new')", title))) is Status.STALE
    axes = "matplotlib.axes._axes.Axes"
    stored = (shown("<Axes: xlabel='x'>"),)
    assert status(stored, ran(matplotlibs("<Axes: xlabel='t'>", axes))) is Status.STALE
    figure = "matplotlib.figure.Figure"
    stored = (shown("<Figure size 640x480 with 1 Axes>"),)
    assert status(stored, ran(matplotlibs("<Figure size 640x480 with 2 Axes>", figure))) is (
        Status.STALE
    )
    # A figure shown where none was stored is an output more.
    assert status((), ran(matplotlibs("<Figure size 640x480 with 1 Axes>", figure))) is (
        Status.STALE
    )


def test_a_users_own_class_whose_repr_looks_like_matplotlibs_is_compared_as_it_is() -> None:
    stored = (shown("Text(0.5, 1.0, 'a')"),)
    assert status(stored, ran(matplotlibs("Text(0.5, 2.0, 'a')", "__main__.Text"))) is (
        Status.STALE
    )
    assert status(stored, ran(matplotlibs("Text(0.5, 1.0, 'a')", "__main__.Text"))) is (
        Status.VERIFIED
    )
    same = (shown("<Figure size 1x2 with 3 Axes>"),)
    assert status(same, ran(matplotlibs("<Figure size 1x3 with 3 Axes>", "shapes.Figure"))) is (
        Status.STALE
    )


def test_a_hex_number_printed_outside_an_address_is_compared() -> None:
    assert status((stream("flags 0x1234567\n"),), ran(stream("flags 0x7654321\n"))) is (
        Status.STALE
    )
    assert status((shown("0xdeadbeef"),), ran(shown("0xfeedface"))) is Status.STALE
    objects = (shown("<__main__.A object at 0x7f61a0b2c3d0>"),)
    assert status(objects, ran(shown("<__main__.A object at 0x10f4e1b20>"))) is Status.VERIFIED


def test_no_normalizer_touches_an_errors_name_or_message_but_a_reprs_address() -> None:
    def error(message: str) -> CellOutput:
        return CellOutput("error", "ValueError", message, (), ("tb",))

    # JAX's Common_Gotchas notebook: the function's address differs on every run.
    stored = (error("bad handle <function f at 0x7f61a0b2c3d0>"),)
    fresh = ran(error("bad handle <function f at 0x10f4e1b20>"), raised="ValueError")
    assert status(stored, fresh, raises=True) is Status.VERIFIED
    stored = (error("segfault at 0x7f61a0b2c3d0"),)
    fresh = ran(error("segfault at 0x10f4e1b20"), raised="ValueError")
    assert status(stored, fresh, raises=True) is Status.STALE
    stored = (error("bad handle <function f at 0x7f61a0b2c3d0>"),)
    fresh = ran(error("bad handle <function g at 0x10f4e1b20>"), raised="ValueError")
    assert status(stored, fresh, raises=True) is Status.STALE
    coloured = ran(error("\x1b[31mbad\x1b[0m"), raised="ValueError")
    assert status((error("bad"),), coloured, raises=True) is Status.STALE


def test_timeit_hides_only_its_own_lines_figures_and_they_stay_lines() -> None:
    printed = (stream("cost per loop: 3\n"),)
    assert status(printed, ran(stream("cost per loop: 4\n"))) is Status.STALE
    timed = (
        stream(
            "3.2 ms \u00b1 14 \u03bcs per loop (mean \u00b1 std. dev. of 7 runs, 100 loops each)\n"
        ),
    )
    assert status(timed, ran()) is Status.STALE
    noted = ran(
        stream(
            "The slowest run took 5.43 times longer than the fastest. This could mean that an "
            "intermediate result is being cached.\n"
            "1.1 s \u00b1 0 ns per loop (mean \u00b1 std. dev. of 1 run, 1 loop each)\n"
            "Compiler time: 0.12 s\n"
        )
    )
    assert status(timed, noted) is Status.VERIFIED


def test_html_is_judged_where_its_text_plain_only_names_the_object() -> None:
    def html(markup: str, plain: str = "<IPython.core.display.HTML object>") -> CellOutput:
        return CellOutput("display_data", "", plain, (("text/html", markup), ("text/plain", plain)))

    assert status((html("<b>1</b>"),), ran(html("<b>2</b>"))) is Status.STALE
    assert status((html("<b>1</b>"),), ran(html("<i>1</i>"))) is Status.VERIFIED
    styler = "<pandas.io.formats.style.Styler at 0x7f61a0b2c3d0>"
    assert status((html("<td>1</td>", styler),), ran(html("<td>2</td>", styler))) is (Status.STALE)
    # A text/plain that says more than the type is compared as it is.
    frame = "   a\n0  1"
    assert status((html("<td>1</td>", frame),), ran(html("<td>9</td>", frame))) is (Status.VERIFIED)
    markdown = CellOutput(
        "display_data",
        "",
        "<IPython.core.display.Markdown object>",
        (("text/markdown", "**1**"), ("text/plain", "<IPython.core.display.Markdown object>")),
    )
    changed = CellOutput(
        "display_data", "", markdown.text, (("text/markdown", "**2**"), markdown.data[1])
    )
    assert status((markdown,), ran(changed)) is Status.STALE


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


def test_with_number_floats_compare_to_the_precision_the_notebook_stores() -> None:
    def compared(stored: str, fresh: str, number: bool) -> Status:
        block = cell_block((stream(stored),))
        assert isinstance(block.kind, NotebookCell)
        block = replace(block, kind=replace(block.kind, number=number))
        return judge(block, ran(stream(fresh))).status

    assert compared("0.3535534\n", "0.35355338\n", number=False) is Status.STALE
    assert compared("0.3535534\n", "0.35355338\n", number=True) is Status.VERIFIED
    assert compared("pi is 3.14\n", "pi is 3.14159\n", number=True) is Status.VERIFIED
    assert compared("pi is 3.14\n", "pi is 3.16\n", number=True) is Status.STALE
    assert compared("1.5e3 items\n", "1523.0 items\n", number=True) is Status.VERIFIED
    # Integers (shapes, counts) compare as text, as under doctest's NUMBER.
    assert compared("(3, 4)\n", "(3, 5)\n", number=True) is Status.STALE
    # Numbers pair by position: one more or less, and nothing is adopted.
    assert compared("[0.5]\n", "[0.5000001, 2.0]\n", number=True) is Status.STALE


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
    asked = cell_block(stored, images=ImageRule())
    assert judge(asked, ran(*other)).status is Status.STALE
    assert judge(asked, ran(figure("iVBORw0KGgoA\n"))).status is Status.VERIFIED


def figure(png: str, mime: str = "image/png") -> CellOutput:
    return shown("<Figure size 640x480 with 1 Axes>", "display_data", **{mime: png})


def test_a_verified_cell_whose_images_were_not_compared_is_said_to_be() -> None:
    stored, other = (figure("iVBORw0KGgoA"),), (figure("iVBORw0KGgoB"),)
    unseen = judge(cell_block(stored), ran(*other))
    assert (unseen.status, unseen.images_not_compared) == (Status.VERIFIED, True)
    # An image only the notebook stores, or only the fresh run shows, was not compared either.
    text, image = stream("1\n"), CellOutput("display_data", "", "", (("image/png", "iVBO"),))
    assert judge(cell_block((text, image)), ran(text)).images_not_compared
    assert judge(cell_block((text,)), ran(text, image)).images_not_compared
    # Plainly verified: no image, or every image compared.
    assert not judge(cell_block((text,)), ran(text)).images_not_compared
    assert not judge(cell_block(stored, images=ImageRule()), ran(*stored)).images_not_compared
    # An SVG has no pixels to compare until it is drawn.
    svg = (figure("<svg/>", "image/svg+xml"),)
    assert judge(cell_block(svg, images=ImageRule(2.0)), ran(*svg)).images_not_compared
    assert not judge(cell_block(svg, images=ImageRule()), ran(*svg)).images_not_compared
    # A text notebook's output block holds no image: there was none to compare with.
    written = replace(
        cell_block(None),
        kind=NotebookCell(3, None, False, ALL, ("<Figure size 640x480 with 1 Axes>",), 44),
    )
    for rule in (None, ImageRule(), ImageRule(2.0)):
        seen = judge(replace(written, kind=replace(written.kind, images=rule)), ran(*other))
        assert (seen.status, seen.images_not_compared) == (Status.VERIFIED, False)


def test_images_compared_by_pixels_need_pillow_and_the_failure_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # as where Pillow is not installed
    stored = (figure("iVBORw0KGgoA"),)
    failed = judge(cell_block(stored, images=ImageRule(2.0)), ran(*stored))
    assert failed.status is Status.FAILED
    assert failed.problems[0].subtype is Subtype.OPTION
    assert "needs Pillow" in failed.problems[0].message
    assert "pip install 'sphinx-jaxcheck[images]'" in failed.problems[0].message
    # Without an image to decode, or compared by bytes, nothing needs it.
    assert status((stream("1\n"),), ran(stream("1\n")), images=ImageRule(2.0)) is Status.VERIFIED
    assert status(stored, ran(*stored), images=ImageRule()) is Status.VERIFIED


def test_the_reports_count_the_cells_verified_with_images_not_compared_apart(
    tmp_path: Path,
) -> None:
    stored = (figure("iVBORw0KGgoA"),)
    blocks = [
        replace(cell_block(stored), index=n, kind=NotebookCell(n, stored, False, ALL))
        for n in (1, 2)
    ]
    blocks.append(replace(cell_block((stream("1\n"),)), index=3))
    outcomes = [ran(*stored), ran(*stored), ran(stream("1\n"))]
    checked = [(b, judge(b, o)) for b, o in zip(blocks, outcomes, strict=True)]
    line = checked_summary(checked, [], "0.10.2", rules_of)  # counts the images not compared itself
    assert "3 block(s): 1 verified, 2 verified (images not compared), 0 stale, 0 failed" in line
    report = build_report(
        checked, [], kinds=rules_of, summary=line, run={"shard": "1/1", "jax": "0.10.2"}
    )
    assert [c.get("images_not_compared") for c in report["cells"]] == [True, True, None]
    assert [b.get("images_not_compared") for b in report["blocks"]] == [True, True, None]
    assert merge([("a.json", report)])["summary"] == line
    assert render(report, "text", False).startswith(
        "images not compared (verified by their text alone): nb.ipynb:40 (cell 1), "
        'nb.ipynb:40 (cell 2); jaxcheck_notebook_images = "rms" in conf.py compares them by '
        "their pixels\n"
    )


def test_cells_that_fail_after_a_failed_cell_follow_it_and_its_finding_lists_them() -> None:
    def cell(number: int) -> Block:
        block = cell_block((stream("ok\n"),))
        assert isinstance(block.kind, NotebookCell)
        return replace(block, body_line=10 * number, kind=replace(block.kind, cell=number))

    def raised(name: str, message: str) -> Outcome:
        return ran(CellOutput("error", name, message, (), (f"{name}: {message}",)), raised=name)

    blocks = [cell(1), cell(2), cell(3), cell(4)]
    outcomes = [
        raised("NameError", "name 'np' is not defined"),
        ran(stream("ok\n")),
        raised("NameError", "name 'x' is not defined"),
        Outcome(failure=FailureKind.TIMEOUT, message="timed out after 60 s"),
    ]
    verdicts = [judge(b, o) for b, o in zip(blocks, outcomes, strict=True)]
    follow_failures(blocks, verdicts, followed)
    assert [v.status for v in verdicts] == [Status.FAILED, Status.VERIFIED, *[Status.FAILED] * 2]
    assert [v.after for v in verdicts] == ["", "", "nb.ipynb:cell 1", "nb.ipynb:cell 1"]
    assert verdicts[0].followers == (
        "nb.ipynb:cell 3 (line 30): NameError: name 'x' is not defined",
        "nb.ipynb:cell 4 (line 40): timed out after 60 s",
    )
    (root,) = findings_of(blocks[0], verdicts[0], rules_of(blocks[0]))
    assert root.subtype is Subtype.ERROR
    assert "2 later cell(s) failed after it" in root.message
    assert "  nb.ipynb:cell 3 (line 30): NameError: name 'x' is not defined" in root.message
    assert (
        findings_of(blocks[2], verdicts[2], rules_of(blocks[2]))
        == findings_of(blocks[3], verdicts[3], rules_of(blocks[3]))
        == []
    )
    # A cell not run for its bad options is reported on its own, and leads no other.
    refused = replace(blocks[0], error="not run: metadata 'jaxcheck' has no option 'outptu'")
    again = [judge(b, o) for b, o in zip([refused, *blocks[1:]], outcomes, strict=True)]
    follow_failures([refused, *blocks[1:]], again, followed)
    assert [v.after for v in again] == ["", "", "", "nb.ipynb:cell 3"]


def test_the_summary_counts_the_cells_that_failed_after_another_apart() -> None:
    line = summary_line([Status.FAILED] * 3 + [Status.VERIFIED], [], "0.10.2", failed_after=2)
    assert "4 block(s): 1 verified, 0 stale, 1 failed, 2 failed after an earlier cell of " in line


def test_reports_merged_and_junit_tell_the_cells_that_failed_after_another(
    tmp_path: Path,
) -> None:
    blocks = [
        replace(
            cell_block((stream("ok\n"),)),
            index=n,
            kind=NotebookCell(n, (stream("ok\n"),), False, ALL),
        )
        for n in (1, 2)
    ]
    outcome = ran(CellOutput("error", "NameError", "name 'x'", (), ()), raised="NameError")
    verdicts = [judge(b, outcome) for b in blocks]
    follow_failures(blocks, verdicts, followed)
    checked = list(zip(blocks, verdicts, strict=True))
    findings = [f for b, v in checked for f in findings_of(b, v, rules_of(b))]
    report = build_report(checked, findings, kinds=rules_of, summary="", run={"shard": "1/1"})
    assert [c.get("after") for c in report["cells"]] == [None, "nb.ipynb:cell 1"]
    assert "1 failed, 1 failed after an earlier cell" in merge([("a.json", report)])["summary"]
    write_junit(str(tmp_path / "junit.xml"), report)
    suite = ElementTree.parse(tmp_path / "junit.xml").getroot()
    assert [f.get("type") for f in suite.iter("failure")] == ["error", "after"]
    assert suite.get("failures") == "2"
