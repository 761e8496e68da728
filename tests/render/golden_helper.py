"""Golden-image comparison with a tolerance (after Pillow's ``Tests/helper.assert_image_similar``).

A rendering is compared with ``tests/render/golden/<name>.png`` by the mean absolute difference
of its pixels (0-255 per channel), so that a different FreeType or zlib build passes while a
moved tile or a changed colour fails. On failure the expected, actual and difference images are
written to ``tests/render/_failed/``. Regenerate the goldens on purpose with
``KHRONOS_REGEN_GOLDEN=1 .venv/bin/pytest tests/render`` and look at them before committing.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
FAILED = HERE / "_failed"
REGEN = os.environ.get("KHRONOS_REGEN_GOLDEN") == "1"
TOLERANCE = 1.0  # mean absolute difference per channel, out of 255


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    return sum(ImageStat.Stat(diff).mean) / 3


def assert_matches_golden(name: str, png: bytes, tolerance: float = TOLERANCE) -> None:
    actual = Image.open(io.BytesIO(png))
    actual.load()
    path = GOLDEN / f"{name}.png"
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        actual.save(path, format="PNG", optimize=True)
        return
    assert path.exists(), f"no golden image {path}: run with KHRONOS_REGEN_GOLDEN=1 to create it"
    expected = Image.open(path)
    expected.load()
    problem = None
    if expected.size != actual.size:
        problem = f"size {actual.size} differs from the golden {expected.size}"
    else:
        diff = mean_difference(expected, actual)
        if diff > tolerance:
            problem = f"mean pixel difference {diff:.3f} > {tolerance}"
    if problem is None:
        return
    FAILED.mkdir(exist_ok=True)
    expected.save(FAILED / f"{name}.expected.png")
    actual.save(FAILED / f"{name}.actual.png")
    if expected.size == actual.size:
        ImageChops.difference(expected.convert("RGB"), actual.convert("RGB")).save(
            FAILED / f"{name}.diff.png"
        )
    raise AssertionError(
        f"{name}: {problem}; see {FAILED}/{name}.*.png "
        "(KHRONOS_REGEN_GOLDEN=1 regenerates the goldens if the change is intended)"
    )
