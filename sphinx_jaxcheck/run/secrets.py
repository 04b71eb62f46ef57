"""Values of the build's environment that the workers do not get, hidden in what they send.

The workers get only some of the build's environment variables (see
``pool.inherited``), but a block can still read the others, from an ancestor's
``/proc/PID/environ``. Every event a worker sends passes :func:`hide` before it
is read, so that such a value reaches no outcome, diff, report, cache entry or
page: it reads ``[hidden: $NAME]`` instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

# Shorter values ("1", "true", "C.UTF-8") are too common to be secrets, and hiding them would
# garble ordinary output.
SHORTEST_SECRET = 8


def hidden_values(build: Mapping[str, str], workers: Mapping[str, str]) -> dict[bytes, bytes]:
    """What to hide in a worker's events, as the bytes it arrives as (in JSON text, escaped
    and not) and what to put there: each value of a variable of ``build`` that ``workers``
    lack, at least :data:`SHORTEST_SECRET` characters long, that is neither a value the
    workers get nor the name of a path that exists (``PWD``, ``OLDPWD``: no secret)."""
    given = set(workers.values())
    hidden: dict[bytes, bytes] = {}
    for name, value in sorted(build.items(), key=lambda item: -len(item[1])):
        if name in workers or len(value) < SHORTEST_SECRET or value in given:
            continue
        if os.path.exists(value):
            continue
        shown = f"[hidden: ${name}]"
        for form in (value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
            hidden.setdefault(form.encode("utf-8", "surrogateescape"), shown.encode())
    return hidden


def hide(data: bytes, hidden: Mapping[bytes, bytes]) -> bytes:
    """``data`` with every value of ``hidden`` replaced (the longest first)."""
    for value, shown in hidden.items():
        if value in data:
            data = data.replace(value, shown)
    return data
