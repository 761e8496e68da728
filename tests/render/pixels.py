"""Reading rendered images in tests: decoded as RGB, scaled down as Discord's previews scale
them, and counted by colour inside a box."""

from __future__ import annotations

import io

from PIL import Image

Box = tuple[float, float, float, float]  # left, top, right, bottom, in pixels


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def scaled(img: Image.Image, scale: float) -> Image.Image:
    return img.resize((round(img.width * scale), round(img.height * scale)),
                      Image.Resampling.LANCZOS)


def scaled_box(box: Box, scale: float) -> Box:
    left, top, right, bottom = box
    return left * scale, top * scale, right * scale, bottom * scale


def owner_pixels(img: Image.Image, box: Box, colour: tuple[int, int, int]) -> int:
    """How many pixels of ``img`` (RGB) inside ``box`` (rounded to whole pixels) are within 60
    of ``colour``, the differences of the three bands summed."""
    left, top, right, bottom = (round(v) for v in box)
    near = 0
    for pixel in img.crop((left, top, right, bottom)).get_flattened_data():
        assert isinstance(pixel, tuple)  # a pixel of a multi-band image is a tuple of bands
        if sum(abs(a - b) for a, b in zip(pixel, colour, strict=False)) <= 60:
            near += 1
    return near
