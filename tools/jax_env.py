"""Create, once, a virtual environment holding one JAX release, to check docs against it.

    python tools/jax_env.py DIRECTORY VERSION

prints the environment's interpreter (give it to ``jaxcheck --python`` or
``jaxcheck_python``). An environment that is complete (it has a marker file,
written last) is reused; a half-made one is made again. Several processes
asking at once wait for one another (a lock file beside the folder).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

MARKER = ".jaxcheck-complete"


def interpreter(directory: Path) -> Path:
    """The Python of a virtual environment folder."""
    return directory / "bin" / "python"


def ensure(directory: Path, version: str) -> Path:
    """The interpreter of ``directory``, after creating it with jax==version and jaxlib==version."""
    python = interpreter(directory)
    if (directory / MARKER).is_file() and python.exists():
        return python
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{directory}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (directory / MARKER).is_file() and python.exists():
            return python  # another process made it while we waited
        shutil.rmtree(directory, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                f"jax=={version}",
                f"jaxlib=={version}",
                # As pyproject's test extra: ml_dtypes 0.7.0 makes `import jax` 1 s slower.
                "ml_dtypes<0.7",
            ],
            check=True,
        )
        (directory / MARKER).write_text(f"jax=={version}\n", encoding="utf-8")
    return python


def main(argv: list[str]) -> int:
    """Entry point: ``jax_env.py DIRECTORY VERSION``."""
    if len(argv) != 2:
        print("usage: python tools/jax_env.py DIRECTORY VERSION", file=sys.stderr)
        return 2
    print(ensure(Path(argv[0]).resolve(), argv[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
