"""A script of benchmarks/ loaded as a module for its tests (the scripts are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_bench(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a fresh module, the folder on the import path while it loads
    (a script may import its neighbours, as ``bench_choice`` does ``bench_ai``)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_under_test",
                                                      BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))
