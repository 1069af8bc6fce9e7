# pytest setup for the framework's Python tests (ctest python_framework runs them with the build
# tree's package on PYTHONPATH). References are numpy float64, never torch.
import os
import pathlib
import sys
import zlib

import numpy as np
import pytest

ROOT = pathlib.Path(os.environ.get("OPSNN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "examples"))

# precision.md: MERE < T and MARE < 10 T per output dtype.
TOL = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def assert_close(actual, golden, dtype_name, what="", abs_floor=0.0):
    """precision.md's rule: rel_i = |a - g| / (|g| + 1e-7); mean < T, max < 10 T. abs_floor adds an
    absolute allowance (for outputs that cancel, stated by the caller from the input magnitudes)."""
    a = np.asarray(actual, dtype=np.float64)
    g = np.asarray(golden, dtype=np.float64)
    assert a.shape == g.shape, f"{what}: shape {a.shape} != {g.shape}"
    nan_a, nan_g = np.isnan(a), np.isnan(g)
    assert np.array_equal(nan_a, nan_g), f"{what}: NaN positions differ"
    inf_g = np.isinf(g)
    assert np.array_equal(a[inf_g], g[inf_g]), f"{what}: infinities differ"
    m = ~(nan_g | inf_g)
    if not m.any():
        return
    err = np.maximum(np.abs(a[m] - g[m]) - abs_floor, 0.0) / (np.abs(g[m]) + 1e-7)
    T = TOL[dtype_name]
    assert err.mean() < T and err.max() < 10 * T, \
        f"{what}: MERE {err.mean():.3g} (< {T:.3g}), MARE {err.max():.3g} (< {10 * T:.3g})"


def round_to(x, dtype_name):
    """float64 values rounded to a dtype (the values an opsnn tensor of that dtype holds)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype_name == "float32":
        return x.astype(np.float32).astype(np.float64)
    if dtype_name == "float16":
        return x.astype(np.float16).astype(np.float64)
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    s16, one = np.uint64(16), np.uint64(1)
    b = ((b + np.uint64(0x7FFF) + ((b >> s16) & one)) >> s16) << s16  # round to nearest even (finite)
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


@pytest.fixture
def rng(request):
    # A seed per test that is the same in every run (Python's str hash is salted per process, which
    # made the data, and so a rare kink-crossing in a finite difference, change from run to run).
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))
