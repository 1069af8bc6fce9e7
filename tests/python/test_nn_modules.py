# The nn modules over the conv / norm / pooling / embedding / loss ops: forward against numpy float64
# references written here from the definitions (PyTorch's semantics), gradients by gradcheck (central
# differences in float32) on small shapes, running statistics, train / eval, state dicts. No torch.
import numpy as np
import pytest

import opsnn
import opsnn.functional as F
from opsnn import nn
from opsnn.autograd import gradcheck
from conftest import assert_close


def t(a, grad=False):
    x = opsnn.from_numpy(np.asarray(a, dtype=np.float32))
    return x.requires_grad_() if grad else x


def f64(x):
    return x.detach().numpy().astype(np.float64)


# ---- float64 references

def conv_ref(x, w, b, stride, padding, dilation, groups):
    """N-d convolution (cross-correlation) from the definition: x [N, C, *S], w [O, C/g, *K]."""
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    K = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilation[i] * (K[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    O, cg = w.shape[0], w.shape[1]
    og = O // groups
    y = np.zeros((x.shape[0], O) + tuple(out_sp))
    for k in np.ndindex(*K):
        sl = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (out_sp[i] - 1) + 1, stride[i])
                   for i in range(n))
        patch = xp[(slice(None), slice(None)) + sl]  # [N, C, *out]
        for gi in range(groups):
            wk = w[(slice(gi * og, (gi + 1) * og), slice(None)) + k]  # [og, cg]
            y[:, gi * og:(gi + 1) * og] += np.einsum("oc,nc...->no...", wk, patch[:, gi * cg:(gi + 1) * cg])
    if b is not None:
        y += b.reshape((1, -1) + (1,) * n)
    return y


def conv_transpose2d_ref(x, w, b, stride, padding, output_padding, groups, dilation):
    """Scatter-add: input position i contributes w to output i * stride - padding + k * dilation."""
    N, C, H, W = x.shape
    cin_g, og = C // groups, w.shape[1]
    kh, kw = w.shape[2:]
    Ho = (H - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    Wo = (W - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    full = np.zeros((N, og * groups, Ho + 2 * padding[0] + stride[0], Wo + 2 * padding[1] + stride[1]))
    for g in range(groups):
        xs = x[:, g * cin_g:(g + 1) * cin_g]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xs, w[g * cin_g:(g + 1) * cin_g, :, i, j])
                r0, c0 = i * dilation[0], j * dilation[1]
                full[:, g * og:(g + 1) * og, r0:r0 + stride[0] * (H - 1) + 1:stride[0],
                     c0:c0 + stride[1] * (W - 1) + 1:stride[1]] += contrib
    y = full[:, :, padding[0]:padding[0] + Ho, padding[1]:padding[1] + Wo]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def max_pool2d_ref(x, k, s, p, d=(1, 1), ceil=False):
    H, W = x.shape[-2:]
    Ho, Wo = pool_out(H, k[0], s[0], p[0], d[0], ceil), pool_out(W, k[1], s[1], p[1], d[1], ceil)
    y = np.full(x.shape[:-2] + (Ho, Wo), -np.inf)
    for i in range(Ho):
        for j in range(Wo):
            for a in range(k[0]):
                for b in range(k[1]):
                    r, c = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= r < H and 0 <= c < W:
                        y[..., i, j] = np.maximum(y[..., i, j], x[..., r, c])
    return y


def avg_pool2d_ref(x, k, s, p, ceil=False, count_include_pad=True, divisor_override=None):
    H, W = x.shape[-2:]
    Ho, Wo = pool_out(H, k[0], s[0], p[0], 1, ceil), pool_out(W, k[1], s[1], p[1], 1, ceil)
    y = np.zeros(x.shape[:-2] + (Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            r0, c0 = i * s[0] - p[0], j * s[1] - p[1]
            r1, c1 = min(r0 + k[0], H + p[0]), min(c0 + k[1], W + p[1])
            pool_size = (r1 - r0) * (c1 - c0)
            rr0, cc0, rr1, cc1 = max(r0, 0), max(c0, 0), min(r1, H), min(c1, W)
            tot = x[..., rr0:rr1, cc0:cc1].sum(axis=(-2, -1))
            div = divisor_override or (pool_size if count_include_pad else (rr1 - rr0) * (cc1 - cc0))
            y[..., i, j] = tot / div
    return y


def adaptive_avg_pool2d_ref(x, out):
    H, W = x.shape[-2:]
    y = np.zeros(x.shape[:-2] + tuple(out))
    for i in range(out[0]):
        for j in range(out[1]):
            r0, r1 = (i * H) // out[0], -(-((i + 1) * H) // out[0])
            c0, c1 = (j * W) // out[1], -(-((j + 1) * W) // out[1])
            y[..., i, j] = x[..., r0:r1, c0:c1].mean(axis=(-2, -1))
    return y


# ---- convolution

@pytest.mark.parametrize("stride,padding,dilation,groups,bias", [(1, 0, 1, 1, True), (2, 1, 1, 1, False),
                                                                  (1, 2, 2, 2, True), (2, (1, 0), 1, 3, True)])
def test_conv2d_forward_and_gradients(rng, stride, padding, dilation, groups, bias):
    opsnn.manual_seed(3)
    m = nn.Conv2d(6, 3 * groups if groups > 1 else 4, 3, stride=stride, padding=padding, dilation=dilation,
                  groups=groups, bias=bias)
    x = rng.standard_normal((2, 6, 7, 8))
    y = m(t(x))
    st, pd, dl = m.stride, m.padding, m.dilation
    want = conv_ref(x.astype(np.float32).astype(np.float64), f64(m.weight), f64(m.bias) if bias else None, st, pd,
                    dl, groups)
    assert_close(f64(y), want, "float32", "conv2d", abs_floor=1e-5)
    xs = t(rng.standard_normal((1, 6, 5, 5)), True)
    params = [m.weight] + ([m.bias] if bias else [])
    assert gradcheck(lambda a, *p: F.conv2d(a, *p, stride=st, padding=pd, dilation=dl, groups=groups) if bias else
                     F.conv2d(a, p[0], None, st, pd, dl, groups), [xs] + params)


def test_conv1d_and_unbatched(rng):
    m = nn.Conv1d(3, 5, 3, padding=1, stride=2)
    x = rng.standard_normal((2, 3, 9))
    want = conv_ref(x.astype(np.float32).astype(np.float64), f64(m.weight), f64(m.bias), m.stride, m.padding,
                    m.dilation, 1)
    assert_close(f64(m(t(x))), want, "float32", "conv1d", abs_floor=1e-5)
    assert_close(f64(m(t(x[0]))), want[0], "float32", "conv1d unbatched", abs_floor=1e-5)
    xs = t(rng.standard_normal((1, 3, 6)), True)
    assert gradcheck(lambda a, w, b: F.conv1d(a, w, b, 2, 1), [xs, m.weight, m.bias])


@pytest.mark.parametrize("stride,padding,output_padding,groups", [(1, 0, 0, 1), (2, 1, 1, 1), (2, 0, 1, 2)])
def test_conv_transpose2d(rng, stride, padding, output_padding, groups):
    m = nn.ConvTranspose2d(4, 6, 3, stride=stride, padding=padding, output_padding=output_padding, groups=groups)
    x = rng.standard_normal((2, 4, 4, 5))
    want = conv_transpose2d_ref(x.astype(np.float32).astype(np.float64), f64(m.weight), f64(m.bias), m.stride,
                                m.padding, m.output_padding, groups, m.dilation)
    assert_close(f64(m(t(x))), want, "float32", "conv_transpose2d", abs_floor=1e-5)
    xs = t(rng.standard_normal((1, 4, 3, 3)), True)
    assert gradcheck(lambda a, w, b: F.conv_transpose2d(a, w, b, stride, padding, output_padding, groups),
                     [xs, m.weight, m.bias])


def conv_transpose_ref(x, w, b, stride, padding, output_padding, groups, dilation):
    """N-d transposed convolution from the definition (the adjoint of conv_ref): every input element
    x[n, c, i] adds x * w[c, o, k] to y[n, o, i * stride + k * dilation - padding]."""
    n = x.ndim - 2
    S, K = x.shape[2:], w.shape[2:]
    cg, og = x.shape[1] // groups, w.shape[1]
    full = [(S[i] - 1) * stride[i] + dilation[i] * (K[i] - 1) + 1 + output_padding[i] for i in range(n)]
    y = np.zeros((x.shape[0], og * groups) + tuple(full))
    for k in np.ndindex(*K):
        sl = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (S[i] - 1) + 1, stride[i]) for i in range(n))
        for gi in range(groups):
            wk = w[(slice(gi * cg, (gi + 1) * cg), slice(None)) + k]  # [cg, og]
            y[(slice(None), slice(gi * og, (gi + 1) * og)) + sl] += np.einsum("co,nc...->no...", wk,
                                                                               x[:, gi * cg:(gi + 1) * cg])
    y = y[(slice(None), slice(None)) + tuple(slice(padding[i], full[i] - padding[i]) for i in range(n))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * n)
    return y


@pytest.mark.parametrize("stride,padding,groups", [(1, 0, 1), (2, 1, 1), ((1, 2, 1), (0, 1, 1), 2)])
def test_conv3d_forward_and_gradients(rng, stride, padding, groups):
    m = nn.Conv3d(4, 6, (2, 3, 2), stride=stride, padding=padding, groups=groups)
    x = rng.standard_normal((2, 4, 5, 6, 4))
    want = conv_ref(x.astype(np.float32).astype(np.float64), f64(m.weight), f64(m.bias), m.stride, m.padding,
                    m.dilation, groups)
    assert_close(f64(m(t(x))), want, "float32", "conv3d", abs_floor=1e-5)
    xs = t(rng.standard_normal((1, 4, 3, 4, 3)), True)
    assert gradcheck(lambda a, w, b: F.conv3d(a, w, b, m.stride, m.padding, 1, groups), [xs, m.weight, m.bias])


@pytest.mark.parametrize("cls,shape", [(nn.ConvTranspose1d, (2, 4, 7)), (nn.ConvTranspose3d, (1, 4, 3, 4, 3))])
@pytest.mark.parametrize("stride,padding,output_padding,groups", [(1, 0, 0, 1), (2, 1, 1, 2)])
def test_conv_transpose_1d_3d(rng, cls, shape, stride, padding, output_padding, groups):
    m = cls(4, 6, 3, stride=stride, padding=padding, output_padding=output_padding, groups=groups)
    x = rng.standard_normal(shape)
    want = conv_transpose_ref(x.astype(np.float32).astype(np.float64), f64(m.weight), f64(m.bias), m.stride,
                              m.padding, m.output_padding, groups, m.dilation)
    y = m(t(x))
    assert y.shape == want.shape
    assert_close(f64(y), want, "float32", cls.__name__, abs_floor=1e-5)
    # the N-d reference agrees with the 2-d one of test_conv_transpose2d on a 2-d case
    x2 = rng.standard_normal((1, 4, 3, 4))
    w2 = rng.standard_normal((4, 3, 3, 3))
    np.testing.assert_allclose(conv_transpose_ref(x2, w2, None, (2, 2), (1, 1), (1, 1), 1, (1, 1)),
                               conv_transpose2d_ref(x2, w2, None, (2, 2), (1, 1), (1, 1), 1, (1, 1)), rtol=1e-12)


# ---- normalisation

@pytest.mark.parametrize("cls,shape", [(nn.BatchNorm2d, (4, 3, 5, 5)), (nn.BatchNorm1d, (8, 3)),
                                       (nn.BatchNorm1d, (4, 3, 6))])
def test_batch_norm_train_running_stats_and_eval(rng, cls, shape):
    m = cls(3, momentum=0.2)
    with opsnn.no_grad():
        m.weight.copy_(t(rng.uniform(0.5, 1.5, 3)))
        m.bias.copy_(t(rng.uniform(-0.5, 0.5, 3)))
    w, b = f64(m.weight), f64(m.bias)
    axes = tuple(i for i in range(len(shape)) if i != 1)
    bshape = [1, 3] + [1] * (len(shape) - 2)
    rm, rv = np.zeros(3), np.ones(3)
    for step in range(3):
        x = (rng.standard_normal(shape) * 2 + 1).astype(np.float32).astype(np.float64)
        y = m(t(x))
        mu, var = x.mean(axis=axes), x.var(axis=axes)
        n = x.size // 3
        want = (x - mu.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 1e-5) * w.reshape(bshape) + b.reshape(bshape)
        assert_close(f64(y), want, "float32", f"train step {step}", abs_floor=1e-6)
        rm = 0.8 * rm + 0.2 * mu
        rv = 0.8 * rv + 0.2 * var * n / (n - 1)
        assert_close(f64(m.running_mean), rm, "float32", "running_mean", abs_floor=1e-6)
        assert_close(f64(m.running_var), rv, "float32", "running_var")
    assert int(m.num_batches_tracked.item()) == 3
    m.eval()
    x = rng.standard_normal(shape).astype(np.float32).astype(np.float64)
    want = (x - rm.reshape(bshape)) / np.sqrt(rv.reshape(bshape) + 1e-5) * w.reshape(bshape) + b.reshape(bshape)
    assert_close(f64(m(t(x))), want, "float32", "eval", abs_floor=1e-6)
    assert int(m.num_batches_tracked.item()) == 3  # eval does not count
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]


def test_batch_norm_momentum_none_is_a_cumulative_average(rng):
    m = nn.BatchNorm2d(2, momentum=None)
    xs = [rng.standard_normal((3, 2, 4, 4)).astype(np.float32) for _ in range(3)]
    for x in xs:
        m(t(x))
    want = np.mean([x.astype(np.float64).mean(axis=(0, 2, 3)) for x in xs], axis=0)
    assert_close(f64(m.running_mean), want, "float32", "cumulative running_mean", abs_floor=1e-6)


def test_batch_norm_gradients(rng):
    x = t(rng.standard_normal((3, 2, 3, 2)), True)
    w, b = t(rng.uniform(0.5, 1.5, 2), True), t(rng.uniform(-0.5, 0.5, 2), True)
    assert gradcheck(lambda a, g, c: F.batch_norm(a, None, None, g, c, True), [x, w, b])
    rm, rv = t(rng.standard_normal(2)), t(rng.uniform(0.5, 2, 2))
    assert gradcheck(lambda a, g, c: F.batch_norm(a, rm, rv, g, c, False), [x, w, b])
    x1 = t(rng.standard_normal((5, 3)), True)
    assert gradcheck(lambda a: F.batch_norm(a, None, None, None, None, True), [x1])


def test_layer_group_rms_norm_forward(rng):
    x = rng.standard_normal((2, 6, 3, 4)).astype(np.float32).astype(np.float64)
    ln = nn.LayerNorm([3, 4])
    with opsnn.no_grad():
        ln.weight.copy_(t(rng.uniform(0.5, 1.5, (3, 4))))
        ln.bias.copy_(t(rng.uniform(-1, 1, (3, 4))))
    mu = x.mean(axis=(2, 3), keepdims=True)
    var = x.var(axis=(2, 3), keepdims=True)
    want = (x - mu) / np.sqrt(var + 1e-5) * f64(ln.weight) + f64(ln.bias)
    assert_close(f64(ln(t(x))), want, "float32", "LayerNorm", abs_floor=1e-6)

    gn = nn.GroupNorm(3, 6)
    with opsnn.no_grad():
        gn.weight.copy_(t(rng.uniform(0.5, 1.5, 6)))
        gn.bias.copy_(t(rng.uniform(-1, 1, 6)))
    xg = x.reshape(2, 3, -1)
    xn = ((xg - xg.mean(axis=2, keepdims=True)) / np.sqrt(xg.var(axis=2, keepdims=True) + 1e-5)).reshape(x.shape)
    want = xn * f64(gn.weight).reshape(1, 6, 1, 1) + f64(gn.bias).reshape(1, 6, 1, 1)
    assert_close(f64(gn(t(x))), want, "float32", "GroupNorm", abs_floor=1e-6)

    rms = nn.RMSNorm(4, eps=1e-6)
    with opsnn.no_grad():
        rms.weight.copy_(t(rng.uniform(0.5, 1.5, 4)))
    want = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * f64(rms.weight)
    assert_close(f64(rms(t(x))), want, "float32", "RMSNorm", abs_floor=1e-6)
    assert [n for n, _ in rms.named_parameters()] == ["weight"]


def test_norm_gradients(rng):
    x = t(rng.standard_normal((2, 4, 3)), True)
    w, b = t(rng.uniform(0.5, 1.5, 3), True), t(rng.uniform(-0.5, 0.5, 3), True)
    assert gradcheck(lambda a, g, c: F.layer_norm(a, [3], g, c), [x, w, b])
    w4, b4 = t(rng.uniform(0.5, 1.5, 4), True), t(rng.uniform(-0.5, 0.5, 4), True)
    assert gradcheck(lambda a, g, c: F.group_norm(a, 2, g, c), [x, w4, b4])
    assert gradcheck(lambda a, g: F.rms_norm(a, [3], g), [x, w])


# ---- embedding, dropout, flatten, module list

def test_embedding_forward_gradient_and_padding(rng):
    opsnn.manual_seed(2)
    m = nn.Embedding(6, 3, padding_idx=2)
    assert np.all(f64(m.weight)[2] == 0)
    idx = np.array([[0, 2, 5, 5], [1, 2, 0, 3]], np.int64)
    y = m(opsnn.from_numpy(idx))
    assert_close(f64(y), f64(m.weight)[idx], "float32", "embedding")
    g = rng.standard_normal((2, 4, 3))
    (y * t(g)).sum().backward()
    want = np.zeros((6, 3))
    np.add.at(want, idx.reshape(-1), g.astype(np.float32).astype(np.float64).reshape(-1, 3))
    want[2] = 0  # the padding row gets no gradient
    assert_close(f64(m.weight.grad), want, "float32", "embedding gradient", abs_floor=1e-6)
    assert np.all(f64(m.weight.grad)[4] == 0)


def test_dropout_train_and_eval(rng):
    opsnn.manual_seed(7)
    m = nn.Dropout(0.25)
    x = t(rng.uniform(1.0, 2.0, (64, 64)), True)
    y = m(x)
    yv, xv = f64(y), f64(x)
    kept = yv != 0
    assert 0.2 < 1 - kept.mean() < 0.3
    assert_close(yv[kept], xv[kept] / 0.75, "float32", "kept elements scaled")
    y.sum().backward()
    assert_close(f64(x.grad), kept / 0.75, "float32", "dropout gradient")
    m.eval()
    assert m(x) is x
    assert nn.Dropout(0.0)(x) is x
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


def test_flatten_module_list_and_train_eval_flags(rng):
    ml = nn.ModuleList([nn.Linear(4, 4), nn.ReLU()])
    ml.append(nn.Linear(4, 2))
    assert len(ml) == 3 and isinstance(ml[2], nn.Linear)
    assert [n for n, _ in ml.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    x = t(rng.standard_normal((2, 3, 4)))
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Dropout(0.5), nn.Flatten(),
                          nn.ModuleList([nn.Identity()]))
    model.eval()
    assert all(not m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


# ---- pooling

@pytest.mark.parametrize("k,s,p,d,ceil", [(2, None, 0, 1, False), (3, 2, 1, 1, True), ((2, 3), (1, 2), (1, 1), 2, False)])
def test_max_pool2d(rng, k, s, p, d, ceil):
    m = nn.MaxPool2d(k, s, p, d, ceil_mode=ceil)
    x = rng.permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8) / 10.0  # distinct values: no ties
    kk = (k, k) if isinstance(k, int) else k
    ss = kk if s is None else ((s, s) if isinstance(s, int) else s)
    pp = (p, p) if isinstance(p, int) else p
    dd = (d, d) if isinstance(d, int) else d
    want = max_pool2d_ref(x, kk, ss, pp, dd, ceil)
    assert_close(f64(m(t(x))), want, "float32", "max_pool2d")
    xs = t(rng.permutation(2 * 6 * 6).reshape(1, 2, 6, 6) / 7.0, True)
    assert gradcheck(lambda a: F.max_pool2d(a, k, s, p, d, ceil), [xs])


@pytest.mark.parametrize("k,s,p,ceil,cip,div", [(2, None, 0, False, True, None), (3, 2, 1, True, True, None),
                                                (3, 2, 1, False, False, None), (2, 1, 1, False, True, 3)])
def test_avg_pool2d(rng, k, s, p, ceil, cip, div):
    m = nn.AvgPool2d(k, s, p, ceil, cip, div)
    x = rng.standard_normal((2, 3, 7, 6))
    ss = k if s is None else s
    want = avg_pool2d_ref(x.astype(np.float32).astype(np.float64), (k, k), (ss, ss), (p, p), ceil, cip, div)
    assert_close(f64(m(t(x))), want, "float32", "avg_pool2d", abs_floor=1e-6)
    xs = t(rng.standard_normal((1, 2, 5, 5)), True)
    assert gradcheck(lambda a: F.avg_pool2d(a, k, s, p, ceil, cip, div), [xs])


@pytest.mark.parametrize("out", [(1, 1), (3, 2), (4, 5)])
def test_adaptive_avg_pool2d(rng, out):
    x = rng.standard_normal((2, 3, 7, 5))
    want = adaptive_avg_pool2d_ref(x.astype(np.float32).astype(np.float64), out)
    assert_close(f64(nn.AdaptiveAvgPool2d(out)(t(x))), want, "float32", "adaptive_avg_pool2d", abs_floor=1e-6)
    xs = t(rng.standard_normal((1, 2, 5, 4)), True)
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, out), [xs])


# ---- losses

@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_loss(rng, reduction, log_target):
    """nn.KLDivLoss against the float64 formula (xlogy(t, t) - t x, or exp(t) (t - x)); a zero target
    contributes 0; gradients of input and target by gradcheck."""
    x = np.log(rng.uniform(0.05, 1.0, (3, 5)))
    tg = np.log(rng.uniform(0.05, 1.0, (3, 5))) if log_target else rng.uniform(0.0, 1.0, (3, 5))
    if not log_target:
        tg[0, 0] = 0.0
    y = nn.KLDivLoss(reduction, log_target=log_target)(t(x), t(tg))
    xd, td = x.astype(np.float32).astype(np.float64), tg.astype(np.float32).astype(np.float64)
    if log_target:
        terms = np.exp(td) * (td - xd)
    else:
        terms = np.where(td > 0, td * np.log(np.where(td > 0, td, 1.0)) - td * xd, 0.0)
    want = {"none": terms, "sum": terms.sum(), "mean": terms.mean(), "batchmean": terms.sum() / 3}[reduction]
    assert_close(f64(y), want, "float32", "kl_div", abs_floor=1e-6)
    xs, ts = t(x, True), t(tg if log_target else tg + 0.1, True)  # away from t = 0 for the target gradient
    assert gradcheck(lambda u, v: F.kl_div(u, v, reduction, log_target), [xs, ts])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss(rng, reduction):
    a = rng.standard_normal((4, 5))
    b = a + np.where(rng.random((4, 5)) < 0.5, -1, 1) * rng.uniform(0.2, 1.0, (4, 5))  # away from the kink
    y = nn.L1Loss(reduction)(t(a), t(b))
    d = np.abs(a.astype(np.float32).astype(np.float64) - b.astype(np.float32).astype(np.float64))
    want = d.mean() if reduction == "mean" else d.sum() if reduction == "sum" else d
    assert_close(f64(y), want, "float32", "l1_loss")
    x, tg = t(a, True), t(b)
    assert gradcheck(lambda u: F.l1_loss(u, tg, reduction), [x])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(rng, reduction):
    logp = np.log(rng.dirichlet(np.ones(5), size=6))
    target = rng.integers(0, 5, size=6)
    target[1] = -100  # ignore_index
    w = rng.uniform(0.5, 1.5, 5)
    y = nn.NLLLoss(weight=t(w), reduction=reduction)(t(logp), opsnn.from_numpy(target))
    lp, ww = logp.astype(np.float32).astype(np.float64), w.astype(np.float32).astype(np.float64)
    valid = target != -100
    terms = np.where(valid, -lp[np.arange(6), np.where(valid, target, 0)] * ww[np.where(valid, target, 0)], 0.0)
    want = terms if reduction == "none" else terms.sum() if reduction == "sum" else \
        terms.sum() / ww[target[valid]].sum()
    assert_close(f64(y), want, "float32", "nll_loss", abs_floor=1e-7)
    x = t(logp, True)
    tt = opsnn.from_numpy(target)
    assert gradcheck(lambda u: F.nll_loss(u, tt, t(w), reduction=reduction), [x])


@pytest.mark.parametrize("reduction,weighted", [("mean", False), ("sum", True), ("none", True)])
def test_bce_with_logits_loss(rng, reduction, weighted):
    x = rng.standard_normal((3, 4)) * 2
    y = rng.random((3, 4))
    w = rng.uniform(0.5, 1.5, (3, 4)) if weighted else None
    pw = rng.uniform(0.5, 2.0, 4) if weighted else None
    mod = nn.BCEWithLogitsLoss(weight=t(w) if weighted else None, reduction=reduction,
                               pos_weight=t(pw) if weighted else None)
    out = mod(t(x), t(y))
    xx, yy = x.astype(np.float32).astype(np.float64), y.astype(np.float32).astype(np.float64)
    ls = -np.logaddexp(0, -xx)        # log sigmoid(x)
    ls_neg = -np.logaddexp(0, xx)     # log(1 - sigmoid(x))
    pwv = pw.astype(np.float32).astype(np.float64) if weighted else 1.0
    terms = -(pwv * yy * ls + (1 - yy) * ls_neg)
    if weighted:
        terms = terms * w.astype(np.float32).astype(np.float64)
    want = terms if reduction == "none" else terms.sum() if reduction == "sum" else terms.mean()
    assert_close(f64(out), want, "float32", "binary_cross_entropy_with_logits")
    xs, ys = t(x, True), t(y)
    assert gradcheck(lambda u: F.binary_cross_entropy_with_logits(
        u, ys, t(w) if weighted else None, reduction, t(pw) if weighted else None), [xs])


# ---- state dicts

def test_state_dict_round_trip_with_buffers_and_foreign_tensors(rng):
    opsnn.manual_seed(4)
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 2))
    names = list(m.state_dict())
    assert names == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                     "1.num_batches_tracked", "4.weight", "4.bias"]
    new = {k: (rng.standard_normal(v.shape).astype(np.float32) if v.dtype == np.float32 else np.array(5, np.int64))
           for k, v in m.state_dict().items()}
    new["1.running_var"] = np.abs(new["1.running_var"]) + 0.5

    class Foreign:  # a tensor of another library: detach().cpu().numpy(), as torch tensors have
        def __init__(self, a):
            self.a = a

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.a

    m.load_state_dict({k: Foreign(v) for k, v in new.items()})
    for k, v in m.state_dict().items():
        assert np.array_equal(v, new[k]), k
    m.eval()
    x = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    m2 = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 2))
    m2.load_state_dict(m.state_dict())
    m2.eval()
    assert np.array_equal(m(t(x)).detach().numpy(), m2(t(x)).detach().numpy())
    with pytest.raises(KeyError):
        m2.load_state_dict({k: v for k, v in new.items() if k != "1.running_mean"})
    assert len(m.parameters()) == 6 and len(m.buffers()) == 3


# ---- multi-head attention

def mha_ref(q, k, v, w_in, b_in, w_out, b_out, h, mask=None):
    """torch.nn.MultiheadAttention's forward in float64 ([B, S, E] inputs, batch first); mask: an
    additive float mask broadcastable to [B, h, S, L] (-inf where not attended). Returns (out, p)."""
    E = q.shape[-1]
    d = E // h
    Q, K, V = (x @ w_in[i * E:(i + 1) * E].T + b_in[i * E:(i + 1) * E] for i, x in enumerate((q, k, v)))
    B, S, L = q.shape[0], q.shape[1], k.shape[1]
    Q = Q.reshape(B, S, h, d).transpose(0, 2, 1, 3)
    K = K.reshape(B, L, h, d).transpose(0, 2, 1, 3)
    V = V.reshape(B, L, h, d).transpose(0, 2, 1, 3)
    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        s = s + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = (p @ V).transpose(0, 2, 1, 3).reshape(B, S, E)
    return o @ w_out.T + b_out, p


def _mha_case(rng, batch_first):
    opsnn.manual_seed(5)
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first)
    m.in_proj_bias = nn.Parameter(rng.standard_normal(24).astype(np.float32))  # non-zero biases
    m.out_proj.bias = nn.Parameter(rng.standard_normal(8).astype(np.float32))
    q, k, v = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 7, 8)), rng.standard_normal((2, 7, 8))
    kpm = np.zeros((2, 7), bool)
    kpm[1, 4:] = True
    am = np.zeros((5, 7), bool)
    am[:, 0] = True
    add = np.where(am[None, None] | kpm[:, None, None, :], -np.inf, 0.0)
    P = {n: f64(p) for n, p in m.named_parameters()}
    want, p = mha_ref(*(x.astype(np.float32).astype(np.float64) for x in (q, k, v)), P["in_proj_weight"],
                      P["in_proj_bias"], P["out_proj.weight"], P["out_proj.bias"], 2, add)
    return m, (q, k, v), kpm, am, want, p


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_fused_and_composed(rng, batch_first, monkeypatch):
    m, (q, k, v), kpm, am, want, p = _mha_case(rng, batch_first)
    tr = (lambda x: t(x)) if batch_first else (lambda x: t(x.transpose(1, 0, 2)))
    back = (lambda y: f64(y)) if batch_first else (lambda y: f64(y).transpose(1, 0, 2))
    calls = []
    fused = F.fused_attention
    monkeypatch.setattr(F, "fused_attention", lambda *a, **kw: calls.append(1) or fused(*a, **kw))
    masks = dict(key_padding_mask=opsnn.from_numpy(kpm), attn_mask=opsnn.from_numpy(am))
    with opsnn.no_grad():  # inference, no weights: the fused op
        y, w = m(tr(q), tr(k), tr(v), need_weights=False, **masks)
    assert w is None and calls == [1]
    assert_close(back(y), want, "float32", "mha fused", abs_floor=1e-5)
    y, w = m(tr(q), tr(k), tr(v), **masks)  # weights wanted: composed
    assert calls == [1]
    assert_close(back(y), want, "float32", "mha composed", abs_floor=1e-5)
    assert_close(f64(w), p.mean(1), "float32", "mha weights", abs_floor=1e-6)
    # a float mask is added to the scores (composed)
    fm = rng.standard_normal((5, 7)).astype(np.float32)
    P = {n: f64(x) for n, x in m.named_parameters()}
    want_f, _ = mha_ref(*(x.astype(np.float32).astype(np.float64) for x in (q, k, v)), P["in_proj_weight"],
                        P["in_proj_bias"], P["out_proj.weight"], P["out_proj.bias"], 2, fm.astype(np.float64))
    with opsnn.no_grad():
        y, _ = m(tr(q), tr(k), tr(v), need_weights=False, attn_mask=t(fm))
    assert_close(back(y), want_f, "float32", "mha float mask", abs_floor=1e-5)


def test_multihead_attention_gradients(rng):
    m, (q, k, v), kpm, am, _, _ = _mha_case(rng, True)
    qs, ks, vs = t(q[:, :3, :], True), t(k[:, :4, :], True), t(v[:, :4, :], True)
    assert gradcheck(lambda a, b, c: m(a, b, c, need_weights=False)[0], [qs, ks, vs])
    # the parameters get their gradients through the projections (the composed path)
    y, _ = m(qs, ks, vs, need_weights=False)
    F.sum(y).backward()
    for name, prm in m.named_parameters():
        assert prm.grad is not None and prm.grad.shape == prm.shape, name
        assert np.isfinite(prm.grad.numpy()).all() and np.abs(prm.grad.numpy()).sum() > 0, name
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(10, 3)


def test_multihead_attention_loads_a_torch_state_dict(rng):
    torch = pytest.importorskip("torch", reason="the torch comparison needs python3-torch")
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2)
    m = nn.MultiheadAttention(8, 2)
    m.load_state_dict(tm.state_dict())
    q, k = torch.randn(5, 2, 8), torch.randn(7, 2, 8)
    want, ww = tm(q, k, k)
    y, w = m(t(q.numpy()), t(k.numpy()), t(k.numpy()))
    assert_close(f64(y), want.detach().double().numpy(), "float32", "torch mha", abs_floor=1e-5)
    assert_close(f64(w), ww.detach().double().numpy(), "float32", "torch mha weights", abs_floor=1e-6)


def test_max_pool2d_without_a_gradient_matches_the_indices_path(rng):
    """Inference (no gradient to record) takes aclnnMaxPool, which writes no indices: the same values
    as MaxPool2dWithIndices, NaN and ties included, with padding and ceil mode."""
    x = rng.integers(-3, 4, size=(2, 3, 9, 10)).astype(np.float32)  # many ties
    x[0, 1, 4, 4] = np.nan
    for k, s, p, ceil in [(2, None, 0, False), (3, 2, 1, True), ((2, 3), (2, 1), (1, 0), False)]:
        with_grad = F.max_pool2d(t(x, True), k, s, p, ceil_mode=ceil).detach().numpy()
        with opsnn.no_grad():
            plain = F.max_pool2d(t(x, True), k, s, p, ceil_mode=ceil).numpy()
        kk = (k, k) if isinstance(k, int) else k
        ss = kk if s is None else ((s, s) if isinstance(s, int) else s)
        pp = (p, p) if isinstance(p, int) else p
        assert np.array_equal(plain, with_grad, equal_nan=True)
        want = max_pool2d_ref(x.astype(np.float64), kk, ss, pp, (1, 1), ceil)
        assert np.array_equal(np.isnan(plain), np.isnan(want)) and np.array_equal(plain[~np.isnan(plain)], want[~np.isnan(want)])
