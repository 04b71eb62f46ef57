"""A fresh Jupyter kernel is the oracle: each cell here runs in a real ipykernel (through
nbclient, as MyST-NB and nbconvert run notebooks, its streams coalesced) and in our workers'
IPython shell, and the outputs stored must be the same (guide/notebooks, "How the cells
run"). Backspaces are left out: nbclient's rule for them never runs, and JupyterLab's is the
oracle there (tests/unit/test_streams.py)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

from sphinx_jaxcheck.model import CellOutput, Program
from sphinx_jaxcheck.run.pool import Workers, WorkerSettings
from sphinx_jaxcheck.worker.protocol import RunSession, SessionKind

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("nbclient") is None or importlib.util.find_spec("ipykernel") is None,
    reason="the oracle is a Jupyter kernel: pip install 'sphinx-jaxcheck[test]'",
)

CELLS = {
    "display_update": "h = display(1, display_id=True)\nh.update(2)",
    "display_update_by_id": (
        "from IPython.display import update_display\n"
        "display('a', display_id='x')\nupdate_display('b', display_id='x');"
    ),
    "display_again_with_its_id": "display(3, display_id='y')\ndisplay(4, display_id='y')",
    "display_with_an_id": "h = display('a', display_id=True)\ndisplay('c', display_id='w');",
    "updated_by_a_later_cell": "h.update('b')",
    "cleared_then_updated": (
        "from IPython.display import clear_output\ng = display('d', display_id=True)\n"
        "clear_output()\ng.update('e')"
    ),
    "clear_output_now": "from IPython.display import clear_output\nprint(1)\nclear_output()",
    "clear_output_wait_and_nothing_after": (
        "from IPython.display import clear_output\nprint(1)\nclear_output(wait=True)"
    ),
    "clear_output_wait_then_output": (
        "from IPython.display import clear_output\nprint(1)\nclear_output(wait=True)\ndisplay(2)"
    ),
    "input": "input('name? ')",
    "getpass": "import getpass\ngetpass.getpass()",
    "carriage_returns": "for i in range(4):\n    print(f'\\r{i}/3', end='')\nprint(' done')",
    "progress_on_stderr": (
        "import sys\nfor i in range(3):\n    sys.stderr.write(f'\\r[{\"#\" * i:<3}]')\n"
        "sys.stderr.write('\\n')"
    ),
    "carriage_return_at_the_end": "print('a\\rb', end='\\r')",
}


def stored(output: CellOutput | dict[str, Any]) -> tuple[str, str, str]:
    """What a notebook stores of an output, where the two runs can agree (a traceback names
    each one's files)."""
    if isinstance(output, CellOutput):
        return (output.output_type, output.name, output.text)
    kind = output["output_type"]
    if kind == "stream":
        return (kind, output["name"], output["text"])
    if kind == "error":
        return (kind, output["ename"], output["evalue"])
    return (kind, "", output["data"].get("text/plain", ""))


@pytest.fixture(scope="module")
def kernel_outputs() -> list[list[tuple[str, str, str]]]:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in CELLS.values()],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    client = NotebookClient(
        notebook, timeout=60, kernel_name="python3", allow_errors=True, coalesce_streams=True
    )
    client.execute()
    return [[stored(output) for output in cell.outputs] for cell in notebook.cells]


@pytest.fixture(scope="module")
def worker_outputs() -> Iterator[list[list[tuple[str, str, str]]]]:
    workers = Workers(WorkerSettings(workers=1))
    try:
        items = tuple(
            Program(source, f"nb.ipynb:cell {n}", timeout=60.0)
            for n, source in enumerate(CELLS.values())
        )
        ran = workers.run({"nb": RunSession("nb", (), items, SessionKind.NOTEBOOK)})["nb"]
        yield [[stored(output) for output in outcome.outputs] for outcome in ran.items]
    finally:
        workers.close()


@pytest.mark.parametrize("case", list(CELLS))
def test_a_cell_stores_what_a_jupyter_kernel_stores(
    case: str,
    kernel_outputs: list[list[tuple[str, str, str]]],
    worker_outputs: list[list[tuple[str, str, str]]],
) -> None:
    index = list(CELLS).index(case)
    assert worker_outputs[index] == kernel_outputs[index]
