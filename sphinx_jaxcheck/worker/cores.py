"""Share the machine's cores among concurrent workers.

XLA on CPU sizes its thread pools (compilation and computation) to the cores a
process may run on. Two unpinned workers on two cores would each start threads
for both cores and contend; pinned to a core each, they share the machine
without waste. A single worker keeps every core, since it has no one to share
them with.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def core_slots(workers: int, cores: Collection[int]) -> list[frozenset[int]]:
    """Disjoint sets of cores, one per worker (shared round-robin when workers outnumber cores).

    Empty when there is nothing to share: one worker, or one core.
    """
    ordered = sorted(cores)
    if workers <= 1 or len(ordered) <= 1:
        return []
    slots = min(workers, len(ordered))
    size, extra = divmod(len(ordered), slots)
    result, start = [], 0
    for n in range(slots):
        end = start + size + (1 if n < extra else 0)
        result.append(frozenset(ordered[start:end]))
        start = end
    return result


def least_used(slots: Sequence[frozenset[int]], in_use: Sequence[int]) -> int:
    """Index of the slot with the fewest running workers (the first of equals)."""
    return min(range(len(slots)), key=lambda n: (in_use.count(n), n))
