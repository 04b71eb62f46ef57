"""Parse a block body: find the expected outputs written as comments (user guide: guide/blocks).

source text --parse--> expectations + the code, inline prints and examples a
worker runs (the block's options turn them into a :class:`~.model.Program`).
Pure: it knows nothing of Sphinx and never runs the code.
"""

from __future__ import annotations

import ast
import doctest
import io
import re
import tokenize
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..errors import JaxcheckError
from ..model import DEFAULT_TIMEOUT, BlockOptions, Example, Expectation, ExpectationKind, Program
from .doctest_flags import apply_directives, directive_problem

PROMPT = ">>>"
CONTINUATION = "..."
# What doctest takes for a continuation (PS2) line: any ``...`` after spaces, bare ones too.
_DOCTEST_PS2 = re.compile(r" *\.\.\.")


@dataclass(frozen=True)
class ParsedBody:
    """Expectations found in a body, and the code that produces the actual output."""

    expectations: tuple[Expectation, ...]
    code: str = ""  # empty for a doctest body: its examples run instead
    inline_prints: tuple[tuple[int, int], ...] = ()  # (first, last) block lines
    examples: tuple[Example, ...] = ()
    error: str | None = None  # bad input, with the block line it concerns
    error_line: int = 1  # 1-based block line the error points at

    def program(
        self,
        filename: str,
        options: BlockOptions | None = None,
        default_timeout: float = DEFAULT_TIMEOUT,
    ) -> Program:
        """What a worker runs for this body under these options (see
        :meth:`BlockOptions.program`)."""
        return (options or BlockOptions()).program(
            self.code,
            filename,
            inline_prints=self.inline_prints,
            examples=self.examples,
            default_timeout=default_timeout,
        )


class BodyError(JaxcheckError, Exception):
    """A body that cannot be run as written; the message names the block line."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def comment_text(line: str) -> str:
    """Turn an expectation comment line into the output line it stands for."""
    text = line.lstrip()[1:]
    return text[1:] if text.startswith(" ") else text


def is_prompt(text: str) -> bool:
    """``>>> stmt`` or a bare ``>>>``."""
    return text == PROMPT or text.startswith(PROMPT + " ")


def is_continuation(text: str) -> bool:
    """``... more`` or a bare ``...`` directly after a prompt."""
    return text == CONTINUATION or text.startswith(CONTINUATION + " ")


def is_doctest(body: Sequence[str]) -> bool:
    """A body whose first non-blank line starts with ``>>>`` is a plain doctest."""
    first = next((line for line in body if line.strip()), "")
    return is_prompt(first.lstrip())


def python_code(body: Sequence[str]) -> str:
    """The code a Python body runs (and is compiled as): its lines, each ended."""
    return "\n".join(body) + "\n"


def parse_body(
    body: Sequence[str],
    *,
    doctest_flags: int = 0,
    doctest_only: bool = False,
) -> ParsedBody:
    """Find every expectation in ``body`` (the block's lines, dedented).

    ``doctest_flags`` are the option flags of a doctest body's examples before
    each example's own ``# doctest:`` directives; ``doctest_only`` reads the
    body as a doctest whatever its first line (a page's own examples).
    """
    try:
        if doctest_only or is_doctest(body):
            expectations, examples = parse_doctest(body, doctest_flags)
            code = ""
        else:
            code = python_code(body)
            expectations, examples, inline = _parse_python(body, code, doctest_flags)
    except BodyError as err:
        # A doctest that cannot run still lists its examples (each reported as failed).
        unrun = tuple(
            Expectation(ExpectationKind.DOCTEST, (), first=n, stop=n, statement_line=n + 1)
            for n, line in enumerate(body)
            if (doctest_only or is_doctest(body)) and is_prompt(line.lstrip())
        )
        return ParsedBody(unrun, error=str(err), error_line=err.line)
    return ParsedBody(tuple(expectations), code, inline if code else (), examples)


# -- Python bodies: trailing block, commented REPL, inline prints -------------


def _parse_python(
    body: Sequence[str], code: str, flags: int
) -> tuple[list[Expectation], tuple[Example, ...], tuple[tuple[int, int], ...]]:
    comments = _comment_tokens(code)
    # The syntax tree is only read for inline prints; building it costs twice
    # the compiling, which parses the same way and raises the same errors.
    needs_tree = _has_comment_after_code(body, comments)
    tree = None
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" and the like are the worker's to show, not Sphinx's.
            warnings.simplefilter("ignore")
            tree = ast.parse(code) if needs_tree else None
            # The compiler finds what the parser lets through: `return`, `yield`
            # or `await` outside a function, `break` outside a loop, ...
            compile(code if tree is None else tree, "<block>", "exec", dont_inherit=True)
    except SyntaxError as err:
        # A body that fails to compile has a line (an empty one compiles): clamp into it.
        line = min(max(err.lineno or 1, 1), len(body))
        raise BodyError(
            f"line {line} of the block is not valid Python: {err.msg}: {body[line - 1].strip()!r}",
            line,
        ) from None
    start = _trailing_start(body, comments)
    expectations, examples = _split_trailing(body, start, flags)
    inline = () if tree is None else _inline_prints(tree, comments)
    code_lines = [line for line in body[:start] if line.strip()]
    if not any(not line.lstrip().startswith("#") for line in code_lines) and not examples:
        if not body or not any(line.strip() for line in body):
            raise BodyError("the block is empty: expected Python code to run")
        raise BodyError(
            "the block holds only comments, so there is nothing to run: expected Python "
            "code before the expected-output comments (or `# >>> ` statements)"
        )
    for first, last in inline:
        column, text = comments[last]
        expectations.append(
            Expectation(
                ExpectationKind.INLINE,
                (comment_text(text),),
                first=last - 1,
                stop=last,
                statement_line=first,
                comment_column=column,
            )
        )
    expectations.sort(key=lambda e: (e.first, e.statement_line))
    return expectations, examples, inline


def _has_comment_after_code(body: Sequence[str], comments: dict[int, tuple[int, str]]) -> bool:
    """Whether a comment follows code on its line: only there can a statement end (a line
    holding nothing but a comment has no token a statement could end with)."""
    return any(body[line - 1][:column].strip() for line, (column, _) in comments.items())


def _comment_tokens(code: str) -> dict[int, tuple[int, str]]:
    """Map 1-based line -> (column, text) of the comment on it, per tokenize."""
    scanned = _scan_comments(code)
    if scanned is not None:
        return scanned
    found: dict[int, tuple[int, str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = (token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        # Unfinished code (an open bracket or string at the end): ast.parse rejects
        # it too and reports the problem, so no comment of it is ever read.
        return {}
    return found


def _scan_comments(code: str) -> dict[int, tuple[int, str]] | None:
    """The comments of ``code`` by a line scan, or None where only tokenize can tell.

    Python's tokenize is slow, and most blocks are plain: no string spans lines
    (triple quotes, a backslash at the end of a line) and no f-string can nest
    quotes (Python 3.12). Then each line can be scanned on its own.
    """
    if '"""' in code or "'''" in code or "\r" in code:
        return None
    found: dict[int, tuple[int, str]] = {}
    for number, line in enumerate(code.split("\n"), start=1):
        if line.endswith("\\"):
            return None
        if "#" not in line:
            continue
        column = _comment_column(line)
        if column is None:
            return None
        if column >= 0:
            found[number] = (column, line[column:])
    return found


def _comment_column(line: str) -> int | None:
    """Where the comment of one line starts; -1 for none, None when unsure."""
    quote = ""
    at = 0
    while at < len(line):
        char = line[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char == "#":
            return at
        elif char in "\"'":
            start = at
            while start and line[start - 1].isalpha():
                start -= 1
            if "f" in line[start:at].lower():
                return None  # an f-string: quotes may nest
            quote = char
        at += 1
    return None if quote else -1


def _trailing_start(body: Sequence[str], comments: dict[int, tuple[int, str]]) -> int:
    """Index of the first line of the final run of column-0 comment lines."""
    end = len(body)
    while end and not body[end - 1].strip():
        end -= 1
    start = end
    while start and body[start - 1].startswith("#") and comments.get(start, (1, ""))[0] == 0:
        start -= 1
    return start if start < end else len(body)


def _split_trailing(
    body: Sequence[str], start: int, flags: int
) -> tuple[list[Expectation], tuple[Example, ...]]:
    """Split the trailing block into the body's output and ``# >>>`` examples."""
    lines = [line for line in body[start:] if line.strip()]
    if not lines:
        return [], ()
    texts = [comment_text(line) for line in lines]
    prompts = [i for i, text in enumerate(texts) if is_prompt(text)]
    first_prompt = prompts[0] if prompts else len(texts)
    expectations = [
        Expectation(
            ExpectationKind.TRAILING,
            tuple(texts[:first_prompt]),
            first=start,
            stop=start + first_prompt,
            statement_line=start + 1,
        )
    ]
    examples: list[Example] = []
    for n, at in enumerate(prompts):
        following = prompts[n + 1] if n + 1 < len(prompts) else len(texts)
        source = [texts[at][len(PROMPT) + 1 :]]
        want = at + 1
        while want < following and is_continuation(texts[want]):
            source.append(texts[want][len(CONTINUATION) + 1 :])
            want += 1
        statement = "\n".join(source) + "\n"
        expected = tuple(texts[want:following])
        view = _as_doctest(source, expected, flags)
        if not view.skip:
            examples.append(Example(statement, line=start + at + 1))
        expectations.append(
            Expectation(
                ExpectationKind.REPL,
                expected,
                first=start + want,
                stop=start + following,
                statement_line=start + at + 1,
                source=statement,
                want=view.want,
                exc_msg=view.exc_msg,
                optionflags=view.optionflags,
                skip=view.skip,
            )
        )
    return expectations, tuple(examples)


@dataclass(frozen=True)
class _DoctestView:
    want: str
    exc_msg: str | None
    optionflags: int
    skip: bool


def _as_doctest(source: Sequence[str], expected: Sequence[str], flags: int) -> _DoctestView:
    """A ``# >>>`` statement as doctest reads it: its directives, want and exception."""
    lines = [PROMPT + " " + source[0], *(CONTINUATION + " " + line for line in source[1:])]
    lines += [line if line.strip() else "<BLANKLINE>" for line in expected]
    try:
        (example,) = doctest.DocTestParser().get_examples("\n".join(lines) + "\n")
    except ValueError:
        return _DoctestView("", None, flags, False)  # the block's own rules judge it
    optionflags = apply_directives(flags, example.options)
    return _DoctestView(
        example.want, example.exc_msg, optionflags, bool(optionflags & doctest.SKIP)
    )


def _inline_prints(
    tree: ast.Module, comments: dict[int, tuple[int, str]]
) -> tuple[tuple[int, int], ...]:
    """(first, last) lines of ``print(...)`` statements with a comment on their last line."""
    last_on_line: dict[int, ast.stmt] = {}
    for node in _statements(tree):
        if node.end_lineno is not None:
            # In source order, parents first: of the statements that end on a line, the
            # one visited last ends rightmost (a compound ends with its last child).
            last_on_line[node.end_lineno] = node
    found = []
    for line, node in last_on_line.items():
        # A comment on that line starts after the statement: it runs to the end of the line.
        if comments.get(line) is None:
            continue
        if _is_print_call(node):
            found.append((node.lineno, line))
    return tuple(sorted(found))


def _statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement, nested ones too, without visiting the expressions in between."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.stmt):
            yield child
        if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            yield from _statements(child)


def _is_print_call(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "print"
    )


# -- plain doctest bodies -----------------------------------------------------


def parse_doctest(
    body: Sequence[str], flags: int = 0
) -> tuple[list[Expectation], tuple[Example, ...]]:
    """The examples of a doctest body, as stdlib doctest's parser finds them.

    Examples marked ``+SKIP`` keep their expectation (to be counted) but are
    not run. An IPython magic (``%time ...``) is bad input: plain Python cannot run it.
    """
    text = "\n".join(body) + "\n"
    try:
        parsed = doctest.DocTestParser().get_examples(text, name="block")
    except ValueError as err:
        # doctest says "line N of the docstring (or doctest) for block ...": point at that line.
        found = re.search(r"line (\d+) of the (?:docstring|doctest)", str(err))
        line = min(int(found.group(1)), max(len(body), 1)) if found else 1
        raise BodyError(
            f"the doctest cannot be parsed: {directive_problem(str(err))}", line
        ) from None
    expectations: list[Expectation] = []
    examples: list[Example] = []
    for example in parsed:
        source_lines = prompt_span(body, example.lineno)
        want_lines = [
            "" if line.strip() == "<BLANKLINE>" else line
            # Only newlines end lines: str.splitlines would also split at \f or \x1c.
            for line in example.want.split("\n")[:-1]
        ]
        first = example.lineno + source_lines
        optionflags = apply_directives(flags, example.options)
        skip = bool(optionflags & doctest.SKIP)
        if not skip and example.source.startswith(("%", "!")):
            magic = example.source.split()[0]
            raise BodyError(
                f"line {example.lineno + 1}: `{magic}` is an IPython magic, which plain Python "
                f"(and so doctest) cannot run: write the statement without `{magic}`, or mark "
                "the example `# doctest: +SKIP`",
                example.lineno + 1,
            )
        if not skip:
            examples.append(Example(example.source, line=example.lineno + 1))
        expectations.append(
            Expectation(
                ExpectationKind.DOCTEST,
                tuple(want_lines),
                first=first,
                stop=first + len(want_lines),
                statement_line=example.lineno + 1,
                source=example.source,
                want=example.want,
                exc_msg=example.exc_msg,
                optionflags=optionflags,
                skip=skip,
            )
        )
    return expectations, tuple(examples)


def prompt_span(body: Sequence[str], prompt: int) -> int:
    """How many body lines the example whose ``>>>`` is at ``prompt`` spans.

    Counted on the lines as doctest reads them, not from the parsed source: a
    final bare ``...`` line adds nothing to the source but is still a line.
    """
    end = prompt + 1
    while end < len(body) and _DOCTEST_PS2.match(body[end]):
        end += 1
    return end - prompt
