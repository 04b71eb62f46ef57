"""A notebook cell's images as the lines they are compared by (judge/images.py): by a digest
of their bytes, or by their decoded pixels as pytest-mpl compares figures, matplotlib's own
``compare_images`` being the oracle of the RMS (guide/notebooks, "Images")."""

from __future__ import annotations

import base64
import importlib.util
import io
from pathlib import Path
from typing import Any

import pytest

from sphinx_jaxcheck.judge.images import compared, image_line
from sphinx_jaxcheck.model import ImageRule

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None or importlib.util.find_spec("PIL") is None,
    reason="figures need matplotlib and Pillow: pip install 'sphinx-jaxcheck[test]'",
)
RMS = ImageRule(2.0)  # pytest-mpl's default tolerance


def figure(y: list[float], size: tuple[float, float] = (6.4, 4.8), **line: Any) -> bytes:
    """A PNG of a line plot, drawn by matplotlib as a notebook's inline backend draws it."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=size)
    plt.plot([0, 1], y, **line)
    plt.ylim(-1, 2)
    data = io.BytesIO()
    fig.savefig(data, format="png")
    plt.close(fig)
    return data.getvalue()


def b64(png: bytes) -> str:
    return base64.b64encode(png).decode()


def line(rule: ImageRule, fresh: bytes, stored: bytes) -> str:
    return image_line(rule, "image/png", b64(fresh), ("image/png", b64(stored)))


def matplotlib_rms(tmp_path: Path, expected: bytes, actual: bytes) -> float:
    """The RMS matplotlib's compare_images (pytest-mpl's comparison) finds."""
    from matplotlib.testing.compare import compare_images

    (tmp_path / "expected.png").write_bytes(expected)
    (tmp_path / "actual.png").write_bytes(actual)
    found = compare_images(tmp_path / "expected.png", tmp_path / "actual.png", 0, True)
    return 0.0 if found is None else float(found["rms"])


def test_the_rms_is_matplotlibs_and_over_the_tolerance_the_line_says_it(tmp_path: Path) -> None:
    stored = figure([0, 1])
    moved = figure([0, 0.8])  # the plotted data changed
    rms = matplotlib_rms(tmp_path, stored, moved)
    assert rms > 2
    assert line(RMS, moved, stored) == (
        f"[image/png 640x480, RMS {rms:.2f} from the stored image: more than the tolerance 2]"
    )
    assert line(ImageRule(rms), moved, stored) == "[image/png 640x480]"  # at most the tolerance


def test_a_tiny_antialiasing_difference_is_within_the_tolerance_not_its_bytes(
    tmp_path: Path,
) -> None:
    stored = figure([0, 1])
    thicker = figure([0, 1], linewidth=1.6)  # the line's edge antialiased a little otherwise
    assert thicker != stored
    assert 0.5 < matplotlib_rms(tmp_path, stored, thicker) < 0.7  # as the guide says
    assert line(RMS, thicker, stored) == line(RMS, stored, stored) == "[image/png 640x480]"
    assert line(ImageRule(0.0), thicker, stored).startswith("[image/png 640x480, RMS 0.")
    by_bytes = ImageRule()
    assert line(by_bytes, thicker, stored) != line(by_bytes, stored, stored)


def test_images_of_another_size_or_mode_differ_whatever_the_tolerance() -> None:
    stored = figure([0, 1])
    wider = figure([0, 1], size=(7, 4.8))
    assert line(ImageRule(255), wider, stored) == "[image/png 700x480]"
    # A transparent pixel makes an RGBA image (matplotlib compares it as such).
    from PIL import Image

    clear = Image.new("RGBA", (640, 480), (255, 255, 255, 255))
    clear.putpixel((0, 0), (255, 255, 255, 0))
    data = io.BytesIO()
    clear.save(data, format="PNG")
    assert line(ImageRule(255), data.getvalue(), stored) == (
        "[image/png 640x480, in RGBA; the stored image is in RGB]"
    )


def test_an_image_that_does_not_decode_says_so_and_an_svg_is_not_compared_by_pixels() -> None:
    broken = image_line(RMS, "image/png", b64(b"not a png"))
    assert broken.startswith("[image/png: not an image Pillow decodes (")
    assert not compared(RMS, "image/svg+xml") and compared(RMS, "image/png")
    assert compared(ImageRule(), "image/svg+xml")  # by its bytes
    assert not compared(None, "image/png")
