"""Each notebook normalizer hides only the noise it names (judge/notebooks.py;
guide/notebooks): two outputs built of the same text around different noise compare equal,
and two whose text differs anywhere outside the noise stay different.

Each property builds outputs from pieces of text, tempting ones included (hex numbers, `` at
``, ``per loop``, ``Text(``), and pieces of noise, and knows their canonical form: the
normalized outputs compare equal exactly when the canonical forms do.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from sphinx_jaxcheck.judge.matching import normalize, split_lines
from sphinx_jaxcheck.judge.notebooks import NORMALIZERS, comparable, shown_matplotlib
from sphinx_jaxcheck.model import CellOutput

ALL = tuple(NORMALIZERS)
TEMPTING = (
    "0x",
    "0x1234567",
    "0x7654321",
    "deadbeef",
    " at ",
    "at 0x",
    "<",
    ">",
    " object",
    "per loop",
    " loops",
    "best of 3: ",
    "\u00b1",
    " ms",
    "Text(",
    "0.5, 1.0, ",
    "'t'",
    ")",
    "<Figure size ",
    "640x480",
    " with 1 Axes>",
    "ipykernel_",
    "/tmp/",
    ".py",
    ".ipynb:cell 3",
    "<ipython-input-",
    "[31m",
    "\x1b[31m",
    "\n",
    " ",
    ":",
    "7",
)


# A carriage return or a backspace in a stream lets the text after it overwrite a line
# whose length depends on the noise, so the canonical texts (noise of one fixed length) could
# not say what the screen keeps: the properties leave them out, and
# test_a_stream_is_stored_before_it_is_normalized takes them.
SCREEN_CONTROLS = ("\r", "\b")


def pieces(forbidden: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Text that may tempt a normalizer but holds none of the ``forbidden`` words of its
    noise, nor a carriage return or a backspace."""
    piece = st.lists(st.one_of(st.sampled_from(TEMPTING), st.text(max_size=3)), max_size=8).map(
        "".join
    )
    unwanted = forbidden + SCREEN_CONTROLS
    return piece.filter(lambda text: not any(word in text for word in unwanted))


def pairs(
    text: st.SearchStrategy[str], size: int = 4
) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    """Two lists of texts, often the same, often one piece apart."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[list[str], list[str]]:
        first = draw(st.lists(text, min_size=1, max_size=size))
        second = list(first)
        if draw(st.booleans()):
            at = draw(st.integers(0, len(first) - 1))
            second[at] = draw(text)
        return first, second

    return build()


def same(
    normalizer: str, one: CellOutput, other: CellOutput, matplotlib: frozenset[str] = frozenset()
) -> bool:
    """The two outputs compare equal with only this normalizer on."""
    return comparable((one,), (normalizer,), matplotlib=matplotlib) == comparable(
        (other,), (normalizer,), matplotlib=matplotlib
    )


def alike(one: str, other: str) -> bool:
    """Two canonical texts compare equal (the comparison's own rules: trailing spaces and
    blank lines at either end do not count)."""
    return normalize(split_lines(one)) == normalize(split_lines(other))


def shown(text: str, shows: str = "") -> CellOutput:
    return CellOutput("execute_result", "", text, (("text/plain", text),), shows=shows)


def woven(texts: list[str], noise: list[str]) -> str:
    """Each text followed by a piece of noise."""
    return "".join(text + noise_ for text, noise_ in zip(texts, noise, strict=False))


HEX = st.text("0123456789abcdef", min_size=8, max_size=12)
ADDRESS_REPRS = ("<function f at 0x{}>", "<__main__.A object at 0x{}>", "<cell at 0x{}: int>")


@given(
    pairs(pieces((" at 0x",))),
    st.lists(HEX, min_size=8, max_size=8),
    st.lists(st.sampled_from(ADDRESS_REPRS), min_size=8, max_size=8),
)
@example((["flags 0x1234567"], ["flags 0x7654321"]), ["7f61a0b2c3d0"] * 8, ["<f at 0x{}>"] * 8)
def test_addresses_hide_only_the_address_a_repr_names(
    texts: tuple[list[str], list[str]], addresses: list[str], reprs: list[str]
) -> None:
    first, second = texts
    one = woven(first, [r.format(a) for r, a in zip(reprs, addresses, strict=False)])
    other = woven(second, [r.format(a) for r, a in zip(reprs, reversed(addresses), strict=False)])
    fixed = [r.format("0" * 8) for r in reprs]
    expected = alike(woven(first, fixed), woven(second, fixed))
    assert same("addresses", shown(one), shown(other)) == expected
    streamed = CellOutput("stream", "stdout", one), CellOutput("stream", "stdout", other)
    assert same("addresses", *streamed) == expected


def test_a_stream_is_stored_before_it_is_normalized() -> None:
    """What a carriage return overwrote is compared as Jupyter keeps it: an address hidden
    under the progress line that replaced it, or one standing where it stood."""
    left = "<f at 0x7f61a0b2c3d0>\r<g\n"
    right = "<f at 0x10f4e1b20>\r<g\n"
    stored = CellOutput("stream", "stdout", left), CellOutput("stream", "stdout", right)
    # On screen: "<g at 0x7f61a0b2c3d0>" and "<g at 0x10f4e1b20>", the same but for the
    # address.
    assert same("addresses", *stored)
    overwritten = "x" * 30 + "\r<f at 0x7f61a0b2c3d0>\n", "x" * 30 + "\r<f at 0x10f4e1b20>\n"
    # On screen the longer address leaves fewer of the x's: 9 against 12.
    assert not same("addresses", *(CellOutput("stream", "stdout", t) for t in overwritten))


ANSI = st.sampled_from(("\x1b[31m", "\x1b[0m", "\x1b[34;1m", "\x1b[39;22m", "\x1b[?25l"))


@given(pairs(pieces(("\x1b",))), st.lists(ANSI, min_size=8, max_size=8))
def test_ansi_hides_only_colour_codes(texts: tuple[list[str], list[str]], codes: list[str]) -> None:
    first, second = texts
    one, other = woven(first, codes), woven(second, list(reversed(codes)))
    expected = alike(woven(first, [""] * 8), woven(second, [""] * 8))
    assert same("ansi", shown(one), shown(other)) == expected


TIME = st.builds(
    "{:.3g} {}".format, st.floats(0.001, 999), st.sampled_from(("s", "ms", "\u03bcs", "ns"))
)
TIMING = st.one_of(
    st.builds(
        "{} \u00b1 {} per loop (mean \u00b1 std. dev. of {} run{}, {:,} loop{} each)".format,
        TIME,
        TIME,
        st.integers(1, 9),
        st.sampled_from(("", "s")),
        st.integers(1, 10**7),
        st.sampled_from(("", "s")),
    ),
    st.builds(
        "{:,} loops, best of {}: {} per loop".format, st.integers(1, 10**7), st.integers(1, 9), TIME
    ),
)
NOTES = st.sampled_from(
    (
        "",
        "The slowest run took 5.43 times longer than the fastest. This could mean that an "
        "intermediate result is being cached.\n",
        "Compiler time: 0.12 s\n",
    )
)
LINE = pieces(("\n", "per loop", "slowest run", "Compiler time"))


@given(pairs(LINE), st.lists(st.tuples(NOTES, TIMING), min_size=8, max_size=8))
def test_timeit_hides_only_its_timing_lines(
    texts: tuple[list[str], list[str]], timings: list[tuple[str, str]]
) -> None:
    first, second = texts
    one = "".join(
        f"{line}\n{note}{timing}\n" for line, (note, timing) in zip(first, timings, strict=False)
    )
    other = "".join(
        f"{line}\n{timing}\n" for line, (_, timing) in zip(second, reversed(timings), strict=False)
    )
    streams = CellOutput("stream", "stdout", one), CellOutput("stream", "stdout", other)
    expected = alike(
        "".join(f"{line}\nT\n" for line in first), "".join(f"{line}\nT\n" for line in second)
    )
    assert same("timeit", *streams) == expected


CELL_FILES = st.one_of(
    st.builds("<ipython-input-{}-{}>".format, st.integers(1, 99), HEX),
    st.builds("/tmp/ipykernel_{}/{}.py".format, st.integers(1, 9999), st.integers(1, 10**9)),
    st.builds("/work/docs/nb.ipynb:cell {}".format, st.integers(0, 99)),
)
KERNEL_WORDS = ("ipython-input", "ipykernel_", ".ipynb:cell")


@given(pairs(pieces(KERNEL_WORDS)), st.lists(CELL_FILES, min_size=8, max_size=8), st.data())
def test_cell_files_hide_only_the_kernels_name_for_a_cell(
    texts: tuple[list[str], list[str]], names: list[str], data: st.DataObject
) -> None:
    first, second = texts
    lines = [data.draw(st.integers(1, 99)) for _ in names]
    # As a warning or a message names it: after a space, a quote or a line's start, a line
    # number after it (which is compared: it is the cell's line, in Jupyter as here).
    before = [data.draw(st.sampled_from(("\n", " ", '"', "("))) for _ in names]
    noise = [f"{b}{name}:{line}: " for b, name, line in zip(before, names, lines, strict=False)]
    renamed = [
        f"{b}{name}:{line}: " for b, name, line in zip(before, reversed(names), lines, strict=False)
    ]
    one, other = woven(first, noise), woven(second, renamed)
    streams = CellOutput("stream", "stderr", one), CellOutput("stream", "stderr", other)
    fixed = [f"{b}F:{line}: " for b, line in zip(before, lines, strict=False)]
    assert same("cell-files", *streams) == alike(woven(first, fixed), woven(second, fixed))


COORDINATE = st.sampled_from((0.0, 0.5, 1.0, 0.92, 1.02, -0.1))
LABEL = pieces(("'", '"', "\\")).map(repr)


@given(COORDINATE, COORDINATE, LABEL, COORDINATE, COORDINATE, LABEL, st.booleans())
def test_matplotlib_keeps_a_texts_label_and_position(
    x: float, y: float, label: str, x2: float, y2: float, label2: str, old_style: bool
) -> None:
    stored = shown(f"Text({x:g},{y:g},{label})" if old_style else f"Text({x}, {y}, {label})")
    fresh = shown(f"Text({x2}, {y2}, {label2})", "matplotlib.text.Text")
    kinds = shown_matplotlib((fresh,))
    assert same("matplotlib", stored, fresh, kinds) == ((x, y, label) == (x2, y2, label2))
    # A user's class of the same repr is compared as it is.
    users = shown(fresh.text, "__main__.Text")
    assert same("matplotlib", stored, users, shown_matplotlib((users,))) == (
        stored.text == users.text
    )


@given(
    st.integers(1, 2000), st.integers(1, 2000), st.integers(0, 4), st.integers(0, 4), st.booleans()
)
def test_matplotlib_keeps_a_figures_number_of_axes(
    width: int, height: int, axes: int, axes2: int, figures: bool
) -> None:
    stored = shown(f"<Figure size {width}x{height} with {axes} Axes>")
    shows = "matplotlib.figure.Figure" if figures else "shapes.Figure"
    fresh = shown(f"<Figure size 640x480 with {axes2} Axes>", shows)
    expected = axes == axes2 if figures else stored.text == fresh.text
    assert same("matplotlib", stored, fresh, shown_matplotlib((fresh,))) == expected


PLACEHOLDERS = st.sampled_from(
    (
        "<IPython.core.display.HTML object>",
        "<pandas.io.formats.style.Styler at 0x7f61a0b2c3d0>",
        "<__main__.Report at 0x10f4e1b20>",
    )
)
WORDS = st.text("abc 12", min_size=1, max_size=6).filter(lambda text: text.strip() == text)


@given(
    PLACEHOLDERS, st.lists(WORDS, min_size=1, max_size=3), st.lists(WORDS, min_size=1, max_size=3)
)
def test_html_behind_a_placeholder_is_compared_by_its_text(
    placeholder: str, cells: list[str], cells2: list[str]
) -> None:
    def html(words: list[str]) -> CellOutput:
        markup = "<table><tr>" + "".join(f"<td>{w}</td>" for w in words) + "</tr></table>"
        return CellOutput(
            "display_data", "", placeholder, (("text/html", markup), ("text/plain", placeholder))
        )

    read = [" ".join(w.split()) for w in cells], [" ".join(w.split()) for w in cells2]
    assert same("addresses", html(cells), html(cells2)) == (" ".join(read[0]) == " ".join(read[1]))


ERROR_MESSAGES = st.one_of(st.text(), pieces(()))


def error(message: str, traceback: str = "tb") -> CellOutput:
    return CellOutput("error", "ValueError", message, (), (traceback,))


@given(ERROR_MESSAGES, ERROR_MESSAGES)
@example("flags 0x7f61a0b2c3d0", "flags 0x10f4e1b20")
@example("segfault at 0x7f61a0b2c3d0", "segfault at 0x10f4e1b20")
@example("", "\r")
def test_no_normalizer_changes_an_errors_message_but_for_a_reprs_address(
    message: str, message2: str
) -> None:
    one, other = error(message), error(message2, "other tb")
    # Whatever the comparison itself makes of two messages ('' and '\r' alike), no normalizer
    # makes more of them, where no repr in them names an address.
    expected = comparable((one,), ()) == comparable((other,), ())
    for normalizer in ALL:
        if normalizer != "addresses" or "<" not in message + message2:
            assert same(normalizer, one, other) == expected


@given(
    pairs(pieces(("<", ">"))),
    st.lists(HEX, min_size=8, max_size=8),
    st.lists(st.sampled_from(ADDRESS_REPRS), min_size=8, max_size=8),
)
@example(
    (["Error interpreting argument to "], ["Error interpreting argument to "]),
    ["7fab1d5399e0"] * 4 + ["10f4e1b20aa"] * 4,
    ["<function CustomClass.calc at 0x{}>"] * 8,
)
def test_addresses_hide_in_an_errors_message_only_the_address_a_repr_names(
    texts: tuple[list[str], list[str]], addresses: list[str], reprs: list[str]
) -> None:
    """The one normalizing an error's message gets: where a repr names an address, as in JAX's
    'Error interpreting argument to <function CustomClass.calc at 0x7fab1d5399e0>'."""
    first, second = texts
    one = woven(first, [r.format(a) for r, a in zip(reprs, addresses, strict=False)])
    other = woven(second, [r.format(a) for r, a in zip(reprs, reversed(addresses), strict=False)])
    fixed = [r.format("0" * 8) for r in reprs]
    expected = comparable((error(woven(first, fixed)),), ()) == comparable(
        (error(woven(second, fixed)),), ()
    )
    assert same("addresses", error(one), error(other, "other tb")) == expected
