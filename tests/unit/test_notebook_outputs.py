"""A cell's outputs as its page shows them (sphinx/notebook_outputs.py): the build machine's
paths in a traceback shortened as a reader expects them."""

from __future__ import annotations

from sphinx_jaxcheck.sphinx.notebook_outputs import reader_paths

TRACEBACK = """\
File /root/venv/lib/python3.11/site-packages/jax/_src/lax/control_flow/loops.py:615, in f(x)
File /usr/lib/python3.12/json/decoder.py:12, in decode(s)
File /usr/lib/python3/dist-packages/numpy/core/fromnumeric.py:3, in sum(a)
File /root/project/docs/helpers.py:3, in helper()
File /root/project/src/pkg/model.py:7, in fit()
File /opt/elsewhere/tool.py:1, in run()
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more."""


def test_a_traceback_shows_installed_files_from_their_library_and_the_projects_from_its_docs() -> (
    None
):
    assert reader_paths(TRACEBACK, "/root/project/docs").splitlines() == [
        "File jax/_src/lax/control_flow/loops.py:615, in f(x)",
        "File json/decoder.py:12, in decode(s)",
        "File numpy/core/fromnumeric.py:3, in sum(a)",
        "File helpers.py:3, in helper()",
        "File ../src/pkg/model.py:7, in fit()",
        "File /opt/elsewhere/tool.py:1, in run()",  # neither installed nor the project's
        "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more.",
    ]
