"""The result channel is untrusted: whatever a block writes on it, forks or leaves running
fails that block alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import Build, build, write_project
from cases import Case, documents, statuses
from processes import zygotes_left_by_this_process


# to_every_pipe(data) writes ``data`` to every pipe the block's process holds besides
# stdin/out/err: the result channel among them.
def to_every_pipe(data: bytes) -> str:
    return (
        "import os\n"
        "for fd in [int(f) for f in os.listdir('/proc/self/fd') if int(f) > 2]:\n"
        "    try:\n"
        "        if os.readlink(f'/proc/self/fd/{fd}').startswith('pipe:'):\n"
        f"            os.write(fd, {data!r})\n"
        "    except OSError:\n"
        "        pass\n"
    )


CASES = [
    # A fork that does not end its child: both processes go on through the session.
    Case("fork", "import os\nos.fork()\nprint('once')\n\n# once", "verified"),
    Case(
        "fork-again",
        "import os\nfor _ in range(3):\n    os.fork()\nprint('still once')\n\n# still once",
        "verified",
    ),
    Case("after-forks", "print('next')\n\n# next", "verified"),
    Case("garbage", to_every_pipe(b"{not json\n") + "print('x')\n\n# x", "failed"),
    Case(
        "fake-event",
        to_every_pipe(b'{"event": "block", "index": 99, "outcome": {}}\n') + "print(1)\n\n# 1",
        "failed",
    ),
    Case("partial-write", to_every_pipe(b'{"event": "block", "ind') + "os._exit(0)", "failed"),
    Case("after-garbage", "print('fine')\n\n# fine", "verified"),
    Case(
        "stdout-buffer",
        "import sys\nsys.stdout.buffer.write('héllo\\n'.encode())\nsys.stdout.flush()\n\n# héllo",
        "verified",
    ),
    Case(
        "late-thread",
        "import threading, time\n"
        "def tick():\n    time.sleep(0.3)\n    print('tick')\n"
        "threading.Thread(target=tick).start()\nprint('started')\n\n# started",
        "failed",
    ),
    Case(
        "while-thread-prints", "import time\ntime.sleep(1.5)\nprint('mine')\n\n# mine", "verified"
    ),
]

SYNTAX = {
    "top-return": ("x = 1\nreturn x", 2, "'return' outside function"),
    "top-yield": ("print(1)\nyield 2", 2, "'yield' outside function"),
    "top-await": ("import asyncio\nawait asyncio.sleep(0)", 2, "'await' outside function"),
}


# Threads still running when the last block of their session ends: each block its own session.
THREADS_AT_THE_END = """# Threads at the end

```{jaxcheck}
:name: prints-after-the-session
import threading, time
def late():
    time.sleep(0.3)
    print('late')
threading.Thread(target=late).start()
print('started')

# started
```

```{jaxcheck}
:name: daemon-after-the-session
:session: daemon
import threading, time
def late():
    time.sleep(0.3)
    print('never seen')
threading.Thread(target=late, daemon=True).start()
print('started')

# started
```

```{jaxcheck}
:name: never-ends
:session: stuck
:timeout: 2
import threading, time
def forever():
    while True:
        time.sleep(0.05)
threading.Thread(target=forever).start()
```

```{jaxcheck}
:name: idle-executor
:session: executor
:timeout: 20
from concurrent.futures import ThreadPoolExecutor
pool = ThreadPoolExecutor(2)
print(pool.submit(lambda: 6 * 7).result())

# 42
```
"""


@pytest.fixture(scope="module")
def supervised(tmp_path_factory: pytest.TempPathFactory) -> Build:
    cases = CASES + [Case(name, body, "failed") for name, (body, _, _) in SYNTAX.items()]
    pages = {**documents(cases), "threads_end.md": THREADS_AT_THE_END}
    root = write_project(tmp_path_factory.mktemp("supervisor"), pages)
    return build(root, jaxcheck_workers=2)


def messages(result: Build, name: str) -> list[tuple[str, str]]:
    return [(r.subtype, r.message) for r in result.reported if f"'{name}'" in r.message]


@pytest.mark.parametrize("suffix", ["-md", "-rst"])
def test_every_block_gets_its_own_verdict_whatever_others_write_on_the_channel(
    supervised: Build, suffix: str
) -> None:
    found = statuses(supervised.app)
    for case in CASES:
        assert found[case.name + suffix] == case.status, (
            case.name,
            messages(supervised, case.name + suffix),
        )


@pytest.mark.parametrize("name", ["garbage", "fake-event", "partial-write"])
def test_anything_but_an_event_on_the_channel_is_a_crash_of_the_block_that_wrote_it(
    supervised: Build, name: str
) -> None:
    [(subtype, message)] = messages(supervised, name + "-md")
    assert subtype == "crash"
    assert "result channel" in message and "forked" in message


def test_output_of_a_thread_that_outlives_its_block_is_reported_on_that_block_as_such(
    supervised: Build,
) -> None:
    [(subtype, message)] = messages(supervised, "late-thread-md")
    assert subtype == "output"
    assert "a thread this block started printed 'tick\\n'" in message and "thread.join()" in message
    assert messages(supervised, "while-thread-prints-md") == []


def test_a_thread_left_running_at_the_end_of_its_session_is_waited_for_as_a_script_would(
    supervised: Build,
) -> None:
    """Non-daemon threads are joined (up to their block's timeout) and what they print is
    reported; daemon ones are not waited for."""
    found = statuses(supervised.app)
    [(subtype, message)] = messages(supervised, "prints-after-the-session")
    assert subtype == "output"
    assert (
        "a thread this block started printed 'late\\n' after the last block of its session ended"
        in message
    )
    assert found["daemon-after-the-session"] == "verified"
    assert (
        found["idle-executor"] == "verified"
    )  # the executor's exit hook ends its idle threads, as at interpreter exit
    [(subtype, message)] = messages(supervised, "never-ends")
    assert subtype == "output" and found["never-ends"] == "failed"
    assert (
        "a thread this block started was still running 2 s after the last block "
        "of its session ended" in message
    )
    assert "daemon=True" in message


@pytest.mark.parametrize("name", list(SYNTAX))
@pytest.mark.parametrize("file", ["cases_md.md", "cases_rst.rst"])
def test_return_yield_and_await_outside_a_function_are_syntax_errors_at_their_line(
    supervised: Build, name: str, file: str
) -> None:
    body, line, words = SYNTAX[name]
    [reported] = [r for r in supervised.reported if r.file == file and words in r.message]
    assert reported.subtype == "syntax"
    document = (Path(supervised.app.srcdir) / file).read_text().split("\n")
    assert document[reported.line - 1].strip() == body.split("\n")[line - 1]


def test_the_build_goes_on_and_leaves_no_process_behind(supervised: Build) -> None:
    assert supervised.status == 1
    assert "supervisor died" not in supervised.warnings
    assert zygotes_left_by_this_process() == []
