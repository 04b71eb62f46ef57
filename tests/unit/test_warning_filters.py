"""pytest's ``filterwarnings`` entries, read and applied by the workers (worker/warning_filters.py):
pytest's own parser is the oracle, and the filters act as pytest's do (in this process, no
workers)."""

from __future__ import annotations

import sys
import warnings

import pytest
from _pytest.config import UsageError, parse_warning_filter

from sphinx_jaxcheck.config import read_settings
from sphinx_jaxcheck.errors import ConfigurationError
from sphinx_jaxcheck.worker.warning_filters import applied, parse, resolved

# JAX's and numpyro's entries, and the corners of the syntax.
VALID = [
    "error",
    "ignore:.*Attempting to hash a tracer:FutureWarning",
    "ignore:numpy.ufunc size changed,:RuntimeWarning",
    "once:No GPU:UserWarning",
    "default:Error (reading|writing) persistent compilation cache entry for 'jit_equal'",
    "ignore::DeprecationWarning:jax._src.*",
    "ignore:::mod:12",
    " ignore : x : UserWarning ",
    "e",
    "i::ImportWarning",
    "",
    "always",
    "ignore::ResourceWarning",
    "error::numpy.exceptions.ComplexWarning",
]
INVALID = [
    "a:b:c:d:e:f",
    "shout",
    "ignore:(unclosed:UserWarning",
    "ignore::NoSuchWarning",
    "ignore::ValueError",
    "ignore::User Warning",
    "ignore::UserWarning:mod:-1",
    "ignore::UserWarning:mod:twelve",
    "ignore::UserWarning:[mod",
]


@pytest.mark.parametrize("entry", VALID)
def test_an_entry_reads_as_pytest_reads_its_ini_option(entry: str) -> None:
    parse(entry)
    assert resolved([entry]) == (parse_warning_filter(entry, escape=False),)


@pytest.mark.parametrize("entry", INVALID)
def test_an_entry_pytest_refuses_is_refused_saying_what_was_expected(entry: str) -> None:
    with pytest.raises(UsageError):
        parse_warning_filter(entry, escape=False)
    with pytest.raises(ValueError, match="expected"):
        parse(entry)


def test_a_bad_entry_is_a_configuration_error_naming_it() -> None:
    given = ["error", "ignore:(unclosed:UserWarning"]
    with pytest.raises(ConfigurationError) as raised:
        read_settings(lambda name: given if name == "jaxcheck_filterwarnings" else None)
    assert str(raised.value) == (
        "jaxcheck_filterwarnings: the entry 'ignore:(unclosed:UserWarning' is not a warning "
        "filter: '(unclosed' is not a regular expression (missing ), unterminated subpattern "
        "at position 0); expected one Python's re module reads"
    )
    with pytest.raises(ConfigurationError, match="is not a list of warning filters"):
        read_settings(lambda name: [3] if name == "jaxcheck_filterwarnings" else None)
    one = read_settings(lambda name: "error" if name == "jaxcheck_filterwarnings" else None)
    assert one.filterwarnings == ("error",)


def test_a_category_the_workers_cannot_import_is_left_out_and_a_non_warning_refused() -> None:
    assert resolved(["ignore::no_such_module_here.SomeWarning", "error"]) == (
        ("error", "", Warning, "", 0),
    )
    with pytest.raises(LookupError, match=r"'json\.JSONDecoder' is no warning class"):
        resolved(["ignore::json.JSONDecoder"])


def outcome(filters: list[str], category: type[Warning], message: str) -> str:
    """What warning ``message`` does under the filters: raised, or not."""
    with applied(resolved(filters)):
        try:
            warnings.warn(message, category, stacklevel=1)
        except Warning:
            return "raised"
    return "passed"


def test_later_entries_take_precedence_and_a_comma_is_part_of_a_message() -> None:
    jax = ["error", "ignore:numpy.ufunc size changed,:RuntimeWarning"]
    assert outcome(jax, RuntimeWarning, "numpy.ufunc size changed, may be binary") == "passed"
    assert outcome(jax, RuntimeWarning, "overflow") == "raised"
    assert outcome(jax, UserWarning, "numpy.ufunc size changed, may be") == "raised"
    assert outcome(["ignore::UserWarning", "error"], UserWarning, "x") == "raised"
    assert outcome(["error", "ignore::UserWarning"], UserWarning, "x") == "passed"
    # The message matches from its start, ignoring case, as the warnings module matches.
    assert outcome(["error", "ignore:no gpu"], UserWarning, "No GPU found") == "passed"
    assert outcome(["error", "ignore:gpu"], UserWarning, "No GPU found") == "raised"


def test_the_filters_hold_inside_only_and_no_entry_leaves_things_as_they_are() -> None:
    before = list(warnings.filters)
    assert outcome(["error"], UserWarning, "x") == "raised"
    assert warnings.filters == before
    with applied(()):
        assert warnings.filters == before


def test_deprecation_warnings_are_always_shown_unless_the_interpreter_was_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "warnoptions", [])
    with applied(resolved(["error::UserWarning"])):
        first = [(action, category) for action, _, category, _, _ in warnings.filters[:3]]
    # Newest first: the entries, then pytest's own two.
    assert first == [
        ("error", UserWarning),
        ("always", PendingDeprecationWarning),
        ("always", DeprecationWarning),
    ]
    monkeypatch.setattr(sys, "warnoptions", ["ignore"])
    before = list(warnings.filters)
    with applied(resolved(["error::UserWarning"])):
        assert warnings.filters[1:] == before
