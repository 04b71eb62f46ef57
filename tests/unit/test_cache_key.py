"""The cache key: every part of a block that reaches the worker, and nothing else, with the
fingerprint of the workers' environment (fast, no builds)."""

from __future__ import annotations

from dataclasses import replace

from sphinx_jaxcheck.cache.docstrings import collection_key
from sphinx_jaxcheck.cache.key import code_without_expectations, session_key
from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.model import BlockOptions, Example, Program
from sphinx_jaxcheck.run.interpreter import PackageSet, environment_fingerprint


def program(*body: str, raises: str | None = None, timeout: float = 60.0) -> Program:
    return parse_body(body).program("<b>", BlockOptions(raises=raises, timeout=timeout))


def key(*body: str, **options: object) -> str:
    return session_key([program(*body, **options)], "fingerprint")  # type: ignore[arg-type]


def test_commented_repl_statements_are_part_of_the_key() -> None:
    assert key("x = 1", "", "# >>> x + 2", "# 3") != key("x = 1", "", "# >>> x + 1", "# 3")
    assert key("x = 1", "", "# >>> x + 2", "# 3") != key(
        "x = 1", "", "# >>> x + 2", "# ... + 1", "# 3"
    )


def test_expected_output_is_not_part_of_the_key() -> None:
    assert key("print(1)", "", "# 1") == key("print(1)", "", "# 2")
    assert key("print(1)  # 1") == key("print(1)  # 2")
    assert key("x = 1", "", "# >>> x", "# 1") == key("x = 1", "", "# >>> x", "# 2")


def test_code_options_files_and_fingerprint_are_part_of_the_key() -> None:
    base = key("print(1)", "", "# 1")
    assert base != key("print(2)", "", "# 1")
    assert base != key("print(1)", "", "# 1", raises="ValueError")
    assert base != key("print(1)", "", "# 1", timeout=5.0)
    # The warning filters examples run under decide whether a warning fails them.
    filtered = replace(program("print(1)", "", "# 1"), filterwarnings=("error",))
    assert base != session_key([filtered], "fingerprint")
    assert session_key([filtered], "fingerprint") != session_key(
        [replace(filtered, filterwarnings=("error", "ignore::UserWarning"))], "fingerprint"
    )
    assert base != session_key([program("print(1)", "", "# 1")], "another fingerprint")
    renamed = parse_body(("print(1)", "", "# 1")).program("<c>")
    assert base != session_key([renamed], "fingerprint")
    assert session_key([program("x = 1"), program("print(x)")], "f") != session_key(
        [program("print(x)"), program("x = 1")], "f"
    )
    # An ordinary comment is code a reader sees: it counts.
    assert key("x = 1  # a note", "print(x)", "", "# 1") != key(
        "x = 1  # other", "print(x)", "", "# 1"
    )


def test_blanking_keeps_every_line_and_every_ordinary_comment() -> None:
    code = program("x = '#1'  # a note", "print(x)  # #1", "", "# >>> x", "# '#1'")
    assert code_without_expectations(code) == "x = '#1'  # a note\nprint(x)  \n\n\n\n"
    multi = program("print(", "    1,", ")  # 1", "y = 2  # kept")
    assert code_without_expectations(multi) == "print(\n    1,\n)  \ny = 2  # kept\n"


def test_code_that_cannot_be_tokenized_is_kept_whole() -> None:
    broken = Program("print(1)  # 1\ns = '''\n", "<b>", inline_prints=((1, 1),))
    assert code_without_expectations(broken) == broken.code
    # Without inline prints nothing needs tokenizing: only the trailing comments go.
    assert code_without_expectations(Program("x = 1\n# 1\n  # 2\n\n", "<b>")) == "x = 1\n\n\n\n"


INTERPRETER = PackageSet(
    "3.11.7", (("jax", "0.10.2"), ("jaxlib", "0.10.2"), ("numpy", "2.0.0"), ("somepkg", "1.0"))
)


def test_fingerprint_changes_with_each_distribution_the_python_and_the_env() -> None:
    env = {"JAX_PLATFORMS": "cpu"}
    seen = {environment_fingerprint(env, INTERPRETER)}
    assert environment_fingerprint(dict(env), INTERPRETER) in seen
    for n, (name, _) in enumerate(INTERPRETER.distributions):
        others = list(INTERPRETER.distributions)
        others[n] = (name, "0.0.0-other")
        seen.add(environment_fingerprint(env, PackageSet(INTERPRETER.python, tuple(others))))
    seen.add(
        environment_fingerprint(
            env, PackageSet(INTERPRETER.python, (*INTERPRETER.distributions, ("new", "1")))
        )
    )
    seen.add(environment_fingerprint(env, PackageSet("3.12.0", INTERPRETER.distributions)))
    seen.add(
        environment_fingerprint(
            {**env, "XLA_FLAGS": "--xla_cpu_enable_fast_math=true"}, INTERPRETER
        )
    )
    assert len(seen) == 1 + len(INTERPRETER.distributions) + 3


def test_key_ignores_expected_output_comments_but_keeps_line_numbers() -> None:
    def program(inline_expected: str, trailing: str, note: str = "# a note") -> Program:
        code = f"x = '#1'  {note}\nprint(x)  # {inline_expected}\n\n# >>> x\n# {trailing}\n"
        return Program(code, "<b>", inline_prints=((2, 2),), examples=(Example("x", 4),))

    base = program("#1", "'#1'")
    assert code_without_expectations(base) == "x = '#1'  # a note\nprint(x)  \n\n\n\n"
    assert session_key([base], "f") == session_key([program("#2", "'#2'")], "f")
    assert session_key([base], "f") != session_key([program("#1", "'#1'", note="# other")], "f")
    assert session_key([base], "f") != session_key([base], "another fingerprint")


def test_the_wire_form_of_programs_and_outcomes_is_their_whole_dataclass() -> None:
    # What is hashed into the key, and what the cache stores, is every field, as asdict has it.
    from dataclasses import asdict

    from sphinx_jaxcheck.model import FailureKind, Outcome, RaisedException
    from sphinx_jaxcheck.worker.protocol import outcome_to_wire, program_to_wire

    every = Program(
        "print(1)  # 1\n",
        "<b>",
        inline_prints=((1, 1),),
        examples=(Example("x\n", 3), Example("y = 1\n", 4, mode="exec")),
        raises="ValueError",
        timeout=5.0,
        cwd="/docs",
        module_globals="pkg.mod",
    )
    assert program_to_wire(every) == asdict(every)
    raised = RaisedException("ValueError", "ValueError: x", "tb", True, "why", True)
    outcome = Outcome(
        "out", ((1, "1\n"),), ("2\n",), (None, "E"), raised, FailureKind.TIMEOUT, "m", 1.5
    )
    assert outcome_to_wire(outcome) == {**asdict(outcome), "failure": "timeout"}
    assert outcome_to_wire(Outcome())["exception"] is None


def test_the_collection_key_holds_the_warning_filters_the_imports_ran_under() -> None:
    plain = collection_key("f", ["pkg"], [])
    assert plain == collection_key("f", ["pkg"], [], ())
    assert plain != collection_key("f", ["pkg"], [], ("error",))
    # Order decides precedence, so it counts.
    assert collection_key("f", ["pkg"], [], ("error", "ignore")) != collection_key(
        "f", ["pkg"], [], ("ignore", "error")
    )
