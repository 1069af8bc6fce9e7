# opsnn.auto_optimize (issue #17): the fastest candidate that meets precision.md against float32 is
# kept per input signature and stored on disk; a candidate that misses the precision is never kept.
import json

import numpy as np
import pytest

import opsnn as ops
import opsnn.functional as F


class FakeClock:
    """Time that passes `cost[candidate]` per call of the tuned function (set by the function)."""

    def __init__(self):
        self.now, self.cost = 0.0, 0.0

    def __call__(self):
        self.now += self.cost / 2  # each timed call reads the clock twice
        return self.now


def _tuned(fn, clock, tmp_path, precision="fp16"):
    t = ops.tune.AutoOptimized(fn, precision=precision, tune_steps=3, cache=str(tmp_path / "tune.json"), clock=clock)
    return t


def test_fastest_passing_candidate_is_kept_and_stored(tmp_path):
    clock = FakeClock()
    calls = []
    speed = {None: 3.0, "bfloat16": 1.0, "float16": 2.0}

    def model(x, w):
        d = ops.get_autocast_dtype()
        clock.cost = speed[d.name if d else None]
        calls.append(d)
        return F.linear(x, w)

    x, w = ops.randn(16, 32), ops.randn(8, 32)
    m = _tuned(model, clock, tmp_path)
    assert m.candidates == ["float32", "float16", "bfloat16"]
    y = m(x, w)
    sig = next(iter(m.decisions))
    assert m.decisions[sig] == "bfloat16"  # the fastest, and linear in bfloat16 meets its tolerance
    assert y.dtype is ops.bfloat16
    assert set(m.timings[sig]) == {"float32", "float16", "bfloat16"}
    n = len(calls)
    m(x, w)
    assert len(calls) == n + 1  # no tuning again for the same signature
    stored = json.loads((tmp_path / "tune.json").read_text())
    assert list(stored.values()) == ["bfloat16"] and next(iter(stored)).endswith(sig)
    # a new process (a new wrapper) starts from the stored decision
    m2 = _tuned(model, clock, tmp_path)
    calls.clear()
    m2(x, w)
    assert calls == [ops.bfloat16]
    m(ops.randn(4, 32), w)  # another signature: tuned again
    assert len(m.decisions) == 2


def test_a_candidate_missing_the_precision_is_rejected(tmp_path):
    clock = FakeClock()

    def model(x):
        low = ops.is_autocast_enabled()
        clock.cost = 1.0 if low else 5.0
        return F.mul(x, 1.1) if low else F.mul(x, 1.0)  # the low-precision runs are 10 % off

    m = _tuned(model, clock, tmp_path)
    y = m(ops.randn(10))
    sig = next(iter(m.decisions))
    assert m.decisions[sig] == "float32" and y.dtype is ops.float32
    assert all(str(v).startswith("rejected") for k, v in m.timings[sig].items() if k != "float32")


def test_module_and_arguments(tmp_path):
    lin = ops.nn.Linear(4, 3)
    m = ops.auto_optimize(lin, precision="fp32", tune_steps=1, cache=str(tmp_path / "t.json"))
    x = ops.randn(2, 4)
    want = x.numpy().astype(np.float64) @ lin.weight.detach().numpy().T.astype(np.float64) + lin.bias.detach().numpy()
    np.testing.assert_allclose(m(x).detach().numpy(), want, rtol=1e-5, atol=1e-6)  # the module, called through
    assert m.candidates == ["float32"]
    deco = ops.auto_optimize(precision="bf16", tune_steps=1, cache=str(tmp_path / "t.json"))(lambda a: F.mm(a, a))
    assert deco.candidates == ["float32", "bfloat16"]
    with pytest.raises(ValueError, match="precision"):
        ops.auto_optimize(lin, precision="int4")
    with pytest.raises(ValueError, match="NHWC"):
        ops.auto_optimize(lin, layout="NHWC")
