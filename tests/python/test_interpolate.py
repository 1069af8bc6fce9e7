"""opsnn.functional.interpolate / nn.Upsample (aclnnUpsample* and their backward ops) against
torch.nn.functional.interpolate in float64: every mode and rank, size or scale_factor (with and
without recompute_scale_factor), align_corners, a non-contiguous input, the input gradient; and
the argument errors."""
import numpy as np
import pytest

import opsnn
import opsnn.functional as F
from opsnn import nn
from opsnn.autograd import gradcheck
from conftest import assert_close


def t(a, grad=False):
    x = opsnn.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    return x.requires_grad_() if grad else x


def f64(x):
    return x.detach().numpy().astype(np.float64)


CASES = [  # mode, input shape, kwargs
    ("nearest", (2, 3, 7), dict(size=12)),
    ("nearest", (2, 3, 7), dict(scale_factor=1.7)),
    ("nearest", (1, 2, 5, 6), dict(size=(8, 3))),
    ("nearest", (1, 2, 5, 6), dict(scale_factor=(1.5, 0.6))),
    ("nearest", (1, 2, 5, 6), dict(scale_factor=2.5, recompute_scale_factor=True)),
    ("nearest", (1, 2, 3, 4, 5), dict(scale_factor=(1.5, 2.0, 0.7))),
    ("nearest-exact", (2, 3, 7), dict(scale_factor=1.7)),
    ("nearest-exact", (1, 2, 5, 6), dict(size=(9, 4))),
    ("nearest-exact", (1, 2, 3, 4, 5), dict(size=(5, 3, 8))),
    ("linear", (2, 3, 7), dict(size=11, align_corners=False)),
    ("linear", (2, 3, 7), dict(scale_factor=1.5, align_corners=True)),
    ("bilinear", (2, 3, 5, 6), dict(size=(9, 4))),
    ("bilinear", (2, 3, 5, 6), dict(scale_factor=(1.7, 2.0), align_corners=True)),
    ("bilinear", (1, 1, 1, 6), dict(size=(3, 6))),
    ("bicubic", (1, 2, 5, 6), dict(size=(11, 4), align_corners=False)),
    ("bicubic", (1, 2, 5, 6), dict(scale_factor=1.6, align_corners=True)),
    ("trilinear", (1, 2, 3, 4, 5), dict(size=(5, 3, 8))),
    ("trilinear", (1, 2, 3, 4, 5), dict(scale_factor=(2.0, 1.5, 0.8), align_corners=True)),
]


@pytest.mark.parametrize("mode,shape,kw", CASES)
def test_interpolate_against_torch(mode, shape, kw):
    torch = pytest.importorskip("torch", reason="the comparison needs python3-torch")
    rng = np.random.default_rng(len(shape) * 100 + len(str(kw)))
    x = rng.standard_normal(shape).astype(np.float32)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = torch.nn.functional.interpolate(xt, mode=mode, **kw)
    xo = t(x, True)
    yo = F.interpolate(xo, mode=mode, **kw)
    assert tuple(yo.shape) == tuple(yt.shape)
    assert_close(f64(yo), yt.detach().numpy(), "float32", f"interpolate {mode}", abs_floor=1e-6)
    g = rng.standard_normal(tuple(yt.shape))
    (yt * torch.tensor(g)).sum().backward()
    F.sum(F.mul(yo, t(g))).backward()
    assert_close(f64(xo.grad), xt.grad.numpy(), "float32", f"interpolate {mode} gradient", abs_floor=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
def test_upsample_module_non_contiguous_and_gradcheck(mode):
    rng = np.random.default_rng(3)
    base = t(rng.standard_normal((2, 6, 5, 3)))
    x = F.permute(base, 0, 3, 2, 1)  # [2, 3, 5, 6], not contiguous
    up = nn.Upsample(size=(7, 9), mode=mode)
    y = up(x)
    want = F.interpolate(F.contiguous(x), size=(7, 9), mode=mode)
    # the same values; the separable passes may run in another order for a strided layout
    assert_close(f64(y), f64(want), "float32", "non-contiguous input", abs_floor=1e-6)
    xs = t(rng.standard_normal((1, 2, 3, 4)), True)
    assert gradcheck(lambda a: F.interpolate(a, scale_factor=1.5, mode=mode), [xs])


def test_interpolate_errors():
    x = t(np.zeros((1, 2, 4, 4)))
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=3, scale_factor=2.0)
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, size=3, align_corners=True)
    with pytest.raises(NotImplementedError, match="4D input, but trilinear"):
        F.interpolate(x, size=3, mode="trilinear")
    with pytest.raises(NotImplementedError, match="area"):
        F.interpolate(x, size=3, mode="area")
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(x, size=(3, 3, 3))
