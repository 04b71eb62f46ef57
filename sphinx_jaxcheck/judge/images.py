"""A notebook cell's images as the lines its outputs are compared by.

Under an :class:`~sphinx_jaxcheck.model.ImageRule` without ``rms``, an image is its MIME type
and a digest of its bytes. With ``rms``, a raster image is decoded (by Pillow, imported only
then) and compared with the stored image at its place, as pytest-mpl compares a figure with
its baseline (matplotlib's ``compare_images``): the pixels as RGB, or RGBA where some pixel
is not opaque, and the root mean square of the difference of every channel value (0 to 255),
which may be at most ``rms``. An SVG has no pixels until it is drawn: it is not compared.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import math
from typing import TYPE_CHECKING

from ..model import ImageRule

if TYPE_CHECKING:
    from PIL import Image

NOT_DRAWN = "image/svg+xml"  # pixels only once a browser draws it
MISSING_PILLOW = (
    "comparing a notebook's images by their pixels needs Pillow in the Python that runs "
    "Sphinx: pip install 'sphinx-jaxcheck[images]' (or Pillow), or compare them by their bytes "
    '("compare")'
)


def pillow_missing() -> bool:
    """Whether Pillow, which decodes the images to compare by their pixels, is missing."""
    return importlib.util.find_spec("PIL") is None


def compared(rule: ImageRule | None, mime: str) -> bool:
    """Whether an image of this MIME type is compared under ``rule``."""
    return rule is not None and (rule.rms is None or mime != NOT_DRAWN)


def image_line(rule: ImageRule, mime: str, data: str, stored: tuple[str, str] | None = None) -> str:
    """The line one image is compared by (``compared`` must hold). With ``rms``, a fresh
    image is given the ``stored`` one at its place (MIME type, data): within the tolerance its
    line is the stored one's, else it says by how much they differ."""
    if rule.rms is None:
        return f"[{mime} {hashlib.sha256(data.strip().encode()).hexdigest()[:16]}]"
    try:
        pixels = _decoded(data)
    except ValueError as error:
        return f"[{mime}: not an image Pillow decodes ({error})]"
    width, height = pixels.size
    line = f"[{mime} {width}x{height}]"
    if stored is None or stored[0] != mime:
        return line
    try:
        theirs = _decoded(stored[1])
    except ValueError:
        return line  # the stored image's own line says it is none
    if theirs.size != pixels.size:
        return line  # its size, in the line, differs
    if theirs.mode != pixels.mode:
        return f"[{mime} {width}x{height}, in {pixels.mode}; the stored image is in {theirs.mode}]"
    difference = rms(theirs, pixels)
    if difference <= rule.rms:
        return line
    return (
        f"[{mime} {width}x{height}, RMS {difference:.2f} from the stored image: more than "
        f"the tolerance {rule.rms:g}]"
    )


def rms(expected: Image.Image, actual: Image.Image) -> float:
    """The root mean square of the difference of two images' channel values (of one size and
    mode), as matplotlib's ``calculate_rms``."""
    from PIL import ImageChops, ImageStat

    squares = ImageStat.Stat(ImageChops.difference(expected, actual)).sum2
    width, height = expected.size
    return math.sqrt(sum(squares) / (width * height * len(squares)))


def _decoded(data: str) -> Image.Image:
    """An image's pixels as matplotlib's ``compare_images`` loads them: RGB, or RGBA where
    some pixel is not opaque; ValueError when the data is no image Pillow decodes."""
    from PIL import Image

    try:
        image: Image.Image = Image.open(io.BytesIO(base64.b64decode(data)))
        image.load()
    except (ValueError, OSError, Image.DecompressionBombError) as error:  # base64's, Pillow's
        raise ValueError(str(error)) from error
    if image.mode != "RGB":
        image = image.convert("RGBA")
        if image.getchannel("A").getextrema()[0] == 255:  # opaque: as an RGB image
            image = image.convert("RGB")
    return image
