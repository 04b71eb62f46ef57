"""Which expected lines still hold, for ``jaxcheck update``: a bounded minimal-edit alignment.

Each expected line is kept when it matches one actual line or (when it holds
``...``) a run of actual lines; the other lines are replaced by the actual ones.
The alignment is a dynamic programme over (expected line, actual line) pairs,
so its work grows with the product of the two lengths, never faster: a ``...``
line's possible runs are found by one greedy scan per start (its pieces hold no
line break) and the best end is read from a running maximum. The work is
counted in :class:`Steps`; past the limit the alignment stops with
:class:`AlignmentTooLargeError`, which update turns into a refusal, never a hang.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import JaxcheckError
from ..judge.jaxpr_layout import in_written_layout
from ..judge.matching import (
    ELLIPSIS,
    MatchRules,
    ellipsis_match,
    mask_addresses,
    match_text,
    normalize,
    texts_match,
    traceback_head,
)
from ..model import CompareMode

DEFAULT_STEP_LIMIT = 2_000_000
Aligned = list[tuple[str, "int | None"]]


class AlignmentTooLargeError(JaxcheckError, Exception):
    """Aligning these texts would take more steps than allowed."""


@dataclass
class Steps:
    """A counter of alignment work with a limit (one step: one pair of lines or one piece
    looked up)."""

    limit: int = DEFAULT_STEP_LIMIT
    used: int = 0

    def take(self, count: int = 1) -> None:
        """Count ``count`` steps; raise when the limit is passed."""
        self.used += count
        if self.used > self.limit:
            raise AlignmentTooLargeError(
                "aligning the expected lines with the actual ones needs more than "
                f"{self.limit:,} steps"
            )


def refreshed_lines(
    expected: Sequence[str], actual: Sequence[str], rules: MatchRules, steps: Steps | None = None
) -> Aligned:
    """New expected lines for ``actual``, keeping the expected lines that still match.

    Each line comes with the index of the expected line it keeps (None: a new line).
    The result always matches ``actual``.
    """
    got = normalize(actual)
    if rules.compare is CompareMode.JAXPR:  # the author's line breaks, where the words still hold
        return [(line, None) for line in in_written_layout(expected, got)]
    fresh: Aligned = [(line, None) for line in got]
    best = _align_traceback(list(expected), got, rules, steps or Steps())
    return best if texts_match([text for text, _ in best], got, rules) else fresh


def _align_traceback(want: list[str], got: list[str], rules: MatchRules, steps: Steps) -> Aligned:
    """Tracebacks keep their written header and stack (which doctest ignores); the rest is
    aligned."""
    head, found = traceback_head(want), traceback_head(got)
    if not (head and found):
        return align(want, got, rules, steps)
    rest = align(want[head:], got[found:], rules, steps)
    return [(want[i], i) for i in range(head)] + [
        (t, None if o is None else o + head) for t, o in rest
    ]


def align(
    want: list[str], got: list[str], rules: MatchRules, steps: Steps, *, fast: bool = True
) -> Aligned:
    """Keep as many ``want`` lines as possible, in order, each matching its run of ``got``.

    ``fast=False`` tries every run of a ``...`` line (work cubic in lines); it is
    the reference the fast search is tested against, and the only search when
    matching is more than text (a tolerance).
    """
    n, m = len(want), len(got)
    head = 0  # equal leading lines are kept as they are: no choice to make there
    while (
        head < min(n, m)
        and ELLIPSIS not in want[head]
        and match_text(want[head].rstrip(), got[head], rules)
    ):
        steps.take()
        head += 1
    tail = 0
    while (
        tail < min(n, m) - head
        and ELLIPSIS not in want[n - 1 - tail]
        and match_text(want[n - 1 - tail].rstrip(), got[m - 1 - tail], rules)
    ):
        steps.take()
        tail += 1
    middle = _align_middle(
        want[head : n - tail], got[head : m - tail], rules, steps, fast and rules == MatchRules()
    )
    kept: Aligned = [(want[i], i) for i in range(head)]
    kept += [(text, None if origin is None else origin + head) for text, origin in middle]
    kept += [(want[i], i) for i in range(n - tail, n)]
    return kept


def _align_middle(
    want: list[str], got: list[str], rules: MatchRules, steps: Steps, fast: bool
) -> Aligned:
    n, m = len(want), len(got)
    steps.take((n + 1) * (m + 1))  # the table itself
    masked = [mask_addresses(line) for line in got] if fast else got
    # score[i][j]: most expected lines kept when aligning want[i:] with got[j:]
    score = [[0] * (m + 1) for _ in range(n + 1)]
    step: list[list[tuple[str, int]]] = [[("", 0)] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        ends = (
            _RunEnds(want[i].rstrip(), masked, score[i + 1], steps)
            if fast and ELLIPSIS in want[i]
            else None
        )
        for j in range(m, -1, -1):
            options = [(score[i + 1][j], "drop", 0)]
            if j < m:
                options.append((score[i][j + 1], "take", 0))
            if ends is not None:
                options += [(1 + score[i + 1][k], "keep", k) for k in ends.best(j)]
            else:
                options += [
                    (1 + score[i + 1][k], "keep", k) for k in _runs(want[i], got, j, rules, steps)
                ]
            value, kind, k = max(options, key=lambda o: (o[0], o[1] == "keep", o[2]))
            score[i][j], step[i][j] = value, (kind, k)
    for j in range(m - 1, -1, -1):
        score[n][j], step[n][j] = 0, ("take", 0)
    result: Aligned = []
    i = j = 0
    while i < n or j < m:
        kind, k = step[i][j]
        if kind == "keep":
            result.append((want[i], i))
            i, j = i + 1, k
        elif kind == "take":
            result.append((got[j], None))
            j += 1
        else:
            i += 1
    return result


def _runs(line: str, got: list[str], j: int, rules: MatchRules, steps: Steps) -> list[int]:
    """Ends k such that expected ``line`` matches ``got[j:k]``, by trying each."""
    if ELLIPSIS not in line or not rules.ellipsis:
        steps.take()
        return [j + 1] if j < len(got) and match_text(line.rstrip(), got[j], rules) else []
    ends = []
    for k in range(j, len(got) + 1):
        steps.take(k - j + 1)
        if match_text(line.rstrip(), "\n".join(got[j:k]), rules) and (
            k > j or line.strip() == ELLIPSIS
        ):
            ends.append(k)
    return ends


class _RunEnds:
    """For one ``...`` line (plain text matching): the best end of its run from each start.

    ``head...mid...tail`` matches ``got[j:k]`` joined by newlines exactly when
    ``head`` starts line j, ``tail`` ends line k-1, and the middle pieces occur
    in order between them. No piece holds a newline, so the leftmost greedy
    placement of the middle pieces decides which k are possible: every k-1 after
    the line where they end whose line ends with ``tail``, and that line itself
    when ``tail`` fits after them.
    """

    def __init__(self, line: str, got: list[str], following: list[int], steps: Steps) -> None:
        self.want = mask_addresses(line)
        self.pieces = self.want.split(ELLIPSIS)
        self.got, self.following, self.steps = got, following, steps
        self.head, self.tail, self.middle = self.pieces[0], self.pieces[-1], self.pieces[1:-1]
        m = len(got)
        steps.take(m * (len(self.middle) + 1))
        # next_with[t][L]: first line >= L holding middle piece t (m: none).
        self.next_with = []
        for piece in self.middle:
            row = [m] * (m + 1)
            for at in range(m - 1, -1, -1):
                row[at] = at if piece in got[at] else row[at + 1]
            self.next_with.append(row)
        # best_from[L]: the best k > L over lines L' >= L ending with tail (k = L' + 1).
        self.best_from: list[tuple[int, int] | None] = [None] * (m + 1)
        for at in range(m - 1, -1, -1):
            here = (following[at + 1], at + 1) if got[at].endswith(self.tail) else None
            later = self.best_from[at + 1]
            self.best_from[at] = (
                later if here is None or (later is not None and later[0] >= here[0]) else here
            )

    def best(self, j: int) -> list[int]:
        """The ends worth considering for a run from line ``j`` (at most three)."""
        ends = []
        if self.want.strip() == ELLIPSIS and ellipsis_match(self.want, ""):
            ends.append(j)
        if j >= len(self.got) or not self.got[j].startswith(self.head):
            return ends
        line, column = j, len(self.head)
        for t, piece in enumerate(self.middle):
            self.steps.take()
            found = self.got[line].find(piece, column)
            if found < 0:
                line = self.next_with[t][line + 1]
                if line >= len(self.got):
                    return ends
                found = self.got[line].find(piece)
            column = found + len(piece)
        text = self.got[line]
        if text.endswith(self.tail) and len(text) - len(self.tail) >= column:
            ends.append(line + 1)
        later = self.best_from[line + 1] if line + 1 < len(self.got) else None
        if later is not None:
            ends.append(later[1])
        return ends
