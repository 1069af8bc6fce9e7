# The differential tester opsnn.testing (issue #17): its layouts, its error measure, that it passes
# correct ops and catches a wrong one, the command line and the timing baselines. The float64
# reference here is numpy (torch is optional); with torch installed the same code uses torch.
import json

import numpy as np
import pytest

import opsnn as ops
import opsnn.functional as F
from opsnn import testing


@pytest.mark.parametrize("layout", testing.LAYOUTS)
@pytest.mark.parametrize("dt", [ops.float32, ops.bfloat16])
def test_views_hold_the_values_in_their_layout(layout, dt):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    t = testing._view(a, dt, layout, rng)
    assert t.shape == a.shape and t.dtype is dt
    np.testing.assert_array_equal(t.to(ops.float32).numpy(), testing._rounded(a, dt))
    assert t.is_contiguous() == (layout in ("contiguous", "offset"))
    if layout == "offset":
        assert t.storage_offset() > 0


def test_error_measure_and_special_values():
    ref = np.array([1.0, 2.0, np.nan, np.inf, -4.0])
    assert testing.errors(ref.copy(), ref, ops.float32) == (0.0, 0.0, 0)
    mere, mare, bad = testing.errors(np.array([1.0, 2.2, np.nan, np.inf, -4.0]), ref, ops.float32)
    assert mare == pytest.approx(0.1, rel=1e-6) and mere == pytest.approx(0.1 / 3, rel=1e-6) and bad == 0
    assert testing.errors(np.array([1.0, 2.0, 0.0, np.inf, -4.0]), ref, ops.float32)[2] == 1  # NaN lost
    assert testing.errors(np.array([1.0, 2.0, np.nan, -np.inf, np.nan]), ref, ops.float32)[2] == 2
    # ops that add many products measure against a floor of 2^-10 of the mean magnitude
    small = np.array([1e-6, 1.0, -1.0])
    assert testing.errors(small + 1e-6, small, ops.float32)[1] > 0.5
    assert testing.errors(small + 1e-6, small, ops.float32, sums=True)[1] < 0.01


@pytest.mark.parametrize("name", ["exp", "log", "atan2", "div", "softmax", "matmul", "sum"])
def test_correct_ops_pass_against_numpy(name):
    spec = testing.all_specs()[name]
    cases = testing.check_op(spec, [ops.float32, ops.float16, ops.bfloat16], 8, reference="numpy")
    assert len(cases) == 24
    assert all(c["ok"] for c in cases), [c for c in cases if not c["ok"]][:2]
    assert {c["reference"] for c in cases} == {"numpy float64"}
    assert len({tuple(map(tuple, c["shapes"])) for c in cases}) > 1  # random shapes
    assert len({lay for c in cases for lay in c["layouts"]}) > 1    # and layouts


def test_a_wrong_op_is_caught():
    base = testing.all_specs()["exp"]
    off = testing.Spec("exp", base.draw, call=lambda x: F.mul(F.exp(x), 1.01), numpy_fn=np.exp)
    cases = testing.check_op(off, [ops.float32], 4, reference="numpy")
    assert not any(c["ok"] for c in cases)
    assert cases[0]["mare"] == pytest.approx(0.01, rel=0.05)
    raising = testing.Spec("exp", base.draw, call=lambda x: F.reshape(x, 7, 7, 7, 7), numpy_fn=np.exp)
    assert "error" in testing.check_op(raising, [ops.float32], 1, reference="numpy")[0]
    import io
    buf = io.StringIO()
    assert testing.report({"exp": cases}, file=buf) == 4
    assert "4 failing case(s)" in buf.getvalue() and "FAIL" in buf.getvalue()


def test_command_line(capsys):
    assert testing.main(["--ops", "sin,mul", "--cases", "3", "--reference", "numpy", "--dtypes", "float32"]) == 0
    out = capsys.readouterr().out
    assert "sin" in out and "mul" in out and "0 failing case(s)" in out
    assert testing.main(["--ops", "no_such_op"]) == 2
    assert testing.main(["--list", "--reference", "numpy"]) == 0
    assert "softmax" in capsys.readouterr().out


def test_timing_baseline_flags_a_regression(tmp_path, capsys):
    base = tmp_path / "base.json"
    assert testing.main(["--ops", "add,matmul", "--bench", "--record", str(base)]) == 0
    times = json.loads(base.read_text())
    assert set(times) == {"add", "matmul"} and all(t > 0 for t in times.values())
    fast = tmp_path / "fast.json"
    fast.write_text(json.dumps({k: v / 100 for k, v in times.items()}))  # a baseline 100x faster
    assert testing.main(["--ops", "add,matmul", "--bench", "--compare", str(fast)]) == 1
    assert "REGRESSION" in capsys.readouterr().out
