# opsnn.nn.LSTM / GRU and F.lstm / F.gru (aclnnLSTM / aclnnGRU, gradients aclnnLstmBackward /
# aclnnGRUBackward): forward against a float64 numpy reference written here from the equations
# (PyTorch's gate order and conventions), gradients of input, hx and every parameter against central
# differences of that reference in float64, gradcheck, packed sequences, dropout, autocast, a small
# training run, and (where torch imports) torch.nn.LSTM / GRU with a loaded state_dict.
import math

import numpy as np
import pytest

import opsnn as ops
import opsnn.functional as F
from opsnn import nn
from opsnn.autograd import gradcheck
from conftest import assert_close


def t(a, grad=False):
    x = ops.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    return x.requires_grad_() if grad else x


def f64(x):
    return x.detach().numpy().astype(np.float64)


# ---- float64 reference

def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _cell(kind, x, h, c, w):
    """One step: x [B, I], h / c [B, H], w = (w_ih, w_hh, b_ih, b_hh) (biases may be None)."""
    wih, whh, bih, bhh = w
    gi = x @ wih.T + (0.0 if bih is None else bih)
    gh = h @ whh.T + (0.0 if bhh is None else bhh)
    H = h.shape[1]
    if kind == "LSTM":
        a = gi + gh
        i, f, g, o = _sig(a[:, :H]), _sig(a[:, H:2 * H]), np.tanh(a[:, 2 * H:3 * H]), _sig(a[:, 3 * H:])
        c = f * c + i * g
        return o * np.tanh(c), c
    r = _sig(gi[:, :H] + gh[:, :H])
    z = _sig(gi[:, H:2 * H] + gh[:, H:2 * H])
    n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
    return (1.0 - z) * n + z * h, None


def rnn_ref(kind, x, h0, c0, params, layers, bidirectional, bias, batch_first):
    """torch.nn.LSTM / GRU's forward in float64: params in _flat_weights order; x [T, B, I] (or batch
    first); returns (output, h_n, c_n or None)."""
    D = 2 if bidirectional else 1
    per = 4 if bias else 2
    inp = np.swapaxes(x, 0, 1) if batch_first else x
    T = inp.shape[0]
    hn, cn = [], []
    for layer in range(layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            p = params[k * per:(k + 1) * per]
            w = (p[0], p[1], p[2] if bias else None, p[3] if bias else None)
            h, c = h0[k], (c0[k] if kind == "LSTM" else None)
            ys = [None] * T
            for s in (range(T) if d == 0 else reversed(range(T))):
                h, c = _cell(kind, inp[s], h, c, w)
                ys[s] = h
            outs.append(np.stack(ys))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, axis=-1)
    y = np.swapaxes(inp, 0, 1) if batch_first else inp
    return y, np.stack(hn), (np.stack(cn) if kind == "LSTM" else None)


def numeric_grads(f, arrays, eps=1e-6):
    """Central differences of the float64 scalar f(arrays) with respect to each array."""
    out = []
    for a in arrays:
        g = np.zeros_like(a)
        for j in np.ndindex(*a.shape):
            old = a[j]
            a[j] = old + eps
            fp = f()
            a[j] = old - eps
            fm = f()
            a[j] = old
            g[j] = (fp - fm) / (2 * eps)
        out.append(g)
    return out


CONFIGS = [  # layers, bidirectional, batch_first, bias, hx given
    (1, False, False, True, True),
    (2, True, True, True, False),
    (2, False, False, False, True),
    (1, True, False, False, False),
]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias,given", CONFIGS)
def test_module_against_numpy_reference(kind, layers, bidirectional, batch_first, bias, given, rng):
    T, B, I, H = 3, 2, 2, 3
    D = 2 if bidirectional else 1
    ops.manual_seed(layers + 10 * bidirectional)
    m = getattr(nn, kind)(I, H, num_layers=layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
    params = [f64(p) for p in m._flat_weights]
    x = rng.standard_normal((B, T, I) if batch_first else (T, B, I))
    h0 = rng.standard_normal((layers * D, B, H)) if given else np.zeros((layers * D, B, H))
    c0 = rng.standard_normal((layers * D, B, H)) if given else np.zeros((layers * D, B, H))
    x32, h32, c32 = (a.astype(np.float32).astype(np.float64) for a in (x, h0, c0))
    wy = rng.standard_normal((B, T, D * H) if batch_first else (T, B, D * H))
    wh, wc = rng.standard_normal((layers * D, B, H)), rng.standard_normal((layers * D, B, H))

    xo, ho, co = t(x32, True), t(h32, True), t(c32, True)
    if kind == "LSTM":
        y, (hn, cn) = m(xo, (ho, co) if given else None)
    else:
        y, hn = m(xo, ho if given else None)
        cn = None
    assert tuple(y.shape) == ((B, T, D * H) if batch_first else (T, B, D * H))
    assert tuple(hn.shape) == (layers * D, B, H)
    ry, rh, rc = rnn_ref(kind, x32, h32, c32, params, layers, bidirectional, bias, batch_first)
    assert_close(f64(y), ry, "float32", "output", abs_floor=1e-6)
    assert_close(f64(hn), rh, "float32", "h_n", abs_floor=1e-6)
    if kind == "LSTM":
        assert tuple(cn.shape) == (layers * D, B, H)
        assert_close(f64(cn), rc, "float32", "c_n", abs_floor=1e-6)

    # Gradients of L = sum(y * wy) + sum(h_n * wh) (+ sum(c_n * wc)).
    loss = F.add(F.sum(F.mul(y, t(wy))), F.sum(F.mul(hn, t(wh))))
    if kind == "LSTM":
        loss = F.add(loss, F.sum(F.mul(cn, t(wc))))
    loss.backward()
    arrays = [x32, h32, c32] + params

    def ref_loss():
        a, b, c = rnn_ref(kind, x32, h32, c32, params, layers, bidirectional, bias, batch_first)
        v = np.sum(a * wy) + np.sum(b * wh)
        return v + (np.sum(c * wc) if kind == "LSTM" else 0.0)
    want = numeric_grads(ref_loss, arrays)
    got = [xo.grad, ho.grad if given else None, co.grad if given else None] + [p.grad for p in m._flat_weights]
    names = ["input", "h0", "c0"] + m._flat_weights_names
    for g, w, n in zip(got, want, names):
        if n in ("h0", "c0") and (not given or (n == "c0" and kind == "GRU")):
            assert g is None, n
            continue
        assert g is not None, f"{n}: no gradient"
        assert_close(f64(g), w, "float32", f"gradient of {n}", abs_floor=1e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_parameters_names_shapes_and_init(kind):
    ops.manual_seed(0)
    H, G = 8, (4 if kind == "LSTM" else 3)
    m = getattr(nn, kind)(5, H, num_layers=2, bidirectional=True)
    names = [n for n, _ in m.named_parameters()]
    want = []
    for layer in range(2):
        for sfx in ("", "_reverse"):
            want += [f"{w}_l{layer}{sfx}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert names == want
    shapes = dict((n, tuple(p.shape)) for n, p in m.named_parameters())
    assert shapes["weight_ih_l0"] == (G * H, 5) and shapes["weight_ih_l1_reverse"] == (G * H, 2 * H)
    assert shapes["weight_hh_l1"] == (G * H, H) and shapes["bias_hh_l0_reverse"] == (G * H,)
    assert list(m.state_dict()) == want
    bound = 1.0 / math.sqrt(H)
    vals = np.concatenate([f64(p).ravel() for p in m.parameters()])
    assert np.all(np.abs(vals) <= bound) and np.abs(vals).max() > 0.9 * bound and abs(vals.mean()) < 0.05
    nb = getattr(nn, kind)(5, H, bias=False)
    assert [n for n, _ in nb.named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]
    assert "LSTM" in repr(m) or "GRU" in repr(m)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_unbatched_input_and_checks(kind, rng):
    m = getattr(nn, kind)(3, 4, num_layers=2)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    y1, s1 = m(t(x))
    y2, s2 = m(t(x[:, None, :]))
    assert tuple(y1.shape) == (5, 4)
    np.testing.assert_array_equal(f64(y1), f64(y2)[:, 0])
    h1 = s1[0] if kind == "LSTM" else s1
    h2 = s2[0] if kind == "LSTM" else s2
    assert tuple(h1.shape) == (2, 4)
    np.testing.assert_array_equal(f64(h1), f64(h2)[:, 0])
    with pytest.raises(RuntimeError, match="input_size"):
        m(t(np.zeros((5, 2, 2))))
    with pytest.raises(RuntimeError, match="hidden size"):
        bad = t(np.zeros((1, 2, 4)))
        m(t(np.zeros((5, 2, 3))), (bad, bad) if kind == "LSTM" else bad)
    with pytest.raises(ValueError):
        getattr(nn, kind)(3, 4, dropout=1.5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_no_grad_and_eval(kind, rng):
    m = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True)
    x = t(rng.standard_normal((4, 2, 3)), True)
    y, _ = m(x)
    assert y.requires_grad and y.grad_fn is not None
    with ops.no_grad():
        y2, s2 = m(x)
    assert not y2.requires_grad and y2.grad_fn is None
    np.testing.assert_array_equal(f64(y), f64(y2))  # the train path (per-step lists) computes the same
    for p in m.parameters():
        p.requires_grad = False
    x3 = t(rng.standard_normal((4, 2, 3)))
    y3, _ = m(x3)
    assert not y3.requires_grad  # nothing requires grad: no node recorded


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gradient_from_state_only(kind, rng):
    """A loss on h_n alone (output unused) still reaches every parameter through the backward op."""
    m = getattr(nn, kind)(2, 3, num_layers=2)
    x = rng.standard_normal((4, 2, 2)).astype(np.float64)
    xo = t(x, True)
    _, s = m(xo)
    hn = s[0] if kind == "LSTM" else s
    F.sum(hn).backward()
    params = [f64(p) for p in m._flat_weights]
    x32 = x.astype(np.float32).astype(np.float64)
    zero = np.zeros((2, 2, 3))
    want = numeric_grads(lambda: np.sum(rnn_ref(kind, x32, zero, zero, params, 2, False, True, False)[1]),
                         [x32] + params)
    for g, w in zip([xo.grad] + [p.grad for p in m._flat_weights], want):
        assert_close(f64(g), w, "float32", "gradient", abs_floor=1e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gradcheck(kind, rng):
    T, B, I, H, L, D = 2, 2, 2, 2, 2, 2
    x = t(rng.standard_normal((T, B, I)), True)
    h0 = t(rng.standard_normal((L * D, B, H)), True)
    c0 = t(rng.standard_normal((L * D, B, H)), True)
    m = getattr(nn, kind)(I, H, num_layers=L, bidirectional=True)
    ws = list(m._flat_weights)
    a, b, c = (t(rng.standard_normal(s)) for s in [(T, B, D * H), (L * D, B, H), (L * D, B, H)])

    def fn(x, h0, c0, *ws):
        if kind == "LSTM":
            y, hn, cn = F.lstm(x, (h0, c0), ws, True, L, 0.0, True, True, False)
            return F.add(F.add(F.sum(F.mul(y, a)), F.sum(F.mul(hn, b))), F.sum(F.mul(cn, c)))
        y, hn = F.gru(x, h0, ws, True, L, 0.0, True, True, False)
        return F.add(F.sum(F.mul(y, a)), F.sum(F.mul(hn, b)))
    if kind == "GRU":
        c0.requires_grad = False
    assert gradcheck(fn, [x, h0, c0] + ws)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_sequences(kind, rng):
    """F.lstm / F.gru with batch_sizes (PyTorch's PackedSequence layout): each sequence as if alone."""
    I, H, lens = 2, 3, [4, 3, 1]
    m = getattr(nn, kind)(I, H, num_layers=2, bidirectional=True)
    params = [f64(p) for p in m._flat_weights]
    seqs = [rng.standard_normal((n, I)).astype(np.float32).astype(np.float64) for n in lens]
    h0 = rng.standard_normal((4, 3, H)).astype(np.float32).astype(np.float64)
    c0 = rng.standard_normal((4, 3, H)).astype(np.float32).astype(np.float64)
    sizes = [sum(1 for n in lens if n > s) for s in range(max(lens))]
    data = np.concatenate([np.stack([seqs[b][s] for b in range(sizes[s])]) for s in range(len(sizes))])
    bs = ops.from_numpy(np.array(sizes, dtype=np.int64))
    xo = t(data, True)
    if kind == "LSTM":
        y, hn, cn = F.lstm(xo, (t(h0), t(c0)), m._flat_weights, True, 2, 0.0, True, True, False, batch_sizes=bs)
    else:
        y, hn = F.gru(xo, t(h0), m._flat_weights, True, 2, 0.0, True, True, False, batch_sizes=bs)
    assert tuple(y.shape) == (sum(lens), 2 * H)
    row = 0
    rows = {}
    for s, n in enumerate(sizes):
        for b in range(n):
            rows[(b, s)] = row
            row += 1
    for b, n in enumerate(lens):
        ry, rh, rc = rnn_ref(kind, seqs[b][:, None, :], h0[:, b:b + 1], c0[:, b:b + 1], params, 2, True, True, False)
        got = f64(y)[[rows[(b, s)] for s in range(n)]]
        assert_close(got, ry[:, 0], "float32", f"sequence {b}", abs_floor=1e-6)
        assert_close(f64(hn)[:, b], rh[:, 0], "float32", f"h_n of sequence {b}", abs_floor=1e-6)
        if kind == "LSTM":
            assert_close(f64(cn)[:, b], rc[:, 0], "float32", f"c_n of sequence {b}", abs_floor=1e-6)
    F.sum(F.mul(y, y)).backward()
    assert xo.grad is not None and np.all(np.isfinite(f64(xo.grad)))
    # The last sequence's only step: its gradient is the single-step reference's.
    p32 = [p.copy() for p in params]
    x2 = seqs[2].copy()
    want = numeric_grads(lambda: np.sum(rnn_ref(kind, x2[:, None, :], h0[:, 2:3], c0[:, 2:3], p32, 2, True, True,
                                                 False)[0] ** 2), [x2])[0]
    assert_close(f64(xo.grad)[rows[(2, 0)]], want[0], "float32", "packed gradient", abs_floor=1e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_dropout_between_layers(kind, rng):
    m = getattr(nn, kind)(3, 4, num_layers=2, dropout=0.5)
    x = rng.standard_normal((5, 2, 3)).astype(np.float32)
    params = [f64(p) for p in m._flat_weights]
    zero = np.zeros((2, 2, 4))
    ref = rnn_ref(kind, x.astype(np.float64), zero, zero, params, 2, False, True, False)[0]
    m.eval()
    y_eval, _ = m(t(x))
    assert_close(f64(y_eval), ref, "float32", "eval output", abs_floor=1e-6)
    m.train()
    xo = t(x, True)
    y_train, s = m(xo)
    assert np.abs(f64(y_train) - ref).max() > 1e-3  # the mask changed the second layer's input
    hn = s[0] if kind == "LSTM" else s
    assert tuple(hn.shape) == (2, 2, 4)
    # The first layer's state does not see the mask.
    assert_close(f64(hn)[0], rnn_ref(kind, x.astype(np.float64), zero, zero, params, 1, False, True, False)[1][0],
                 "float32", "layer 0 h_n", abs_floor=1e-6)
    F.sum(y_train).backward()
    assert all(p.grad is not None and np.all(np.isfinite(f64(p.grad))) for p in m.parameters())
    assert xo.grad is not None


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_autocast_bfloat16(kind, rng):
    m = getattr(nn, kind)(3, 4)
    x = t(rng.standard_normal((4, 2, 3)))
    y32, _ = m(x)
    with ops.autocast(ops.bfloat16):
        y, _ = m(x)
    assert y.dtype is ops.bfloat16
    assert_close(f64(y), f64(y32), "bfloat16", "autocast output", abs_floor=1e-2)
    F.sum(F.to(y, ops.float32)).backward()
    for p in m.parameters():
        assert p.grad is not None and p.grad.dtype is ops.float32


def test_sine_continuation_training():
    """LSTM + Linear predicting the next value of sine waves: the loss falls within a few Adam steps."""
    ops.manual_seed(1)
    rng = np.random.default_rng(1)
    T, B = 12, 8
    phase = rng.uniform(0, 2 * np.pi, (1, B, 1))
    steps = np.arange(T + 1).reshape(-1, 1, 1) * 0.5
    wave = np.sin(steps + phase).astype(np.float32)
    x, target = t(wave[:-1]), t(wave[1:])
    lstm, head = nn.LSTM(1, 12), nn.Linear(12, 1)
    opt = ops.optim.Adam(lstm.parameters() + head.parameters(), lr=0.03)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        y, _ = lstm(x)
        loss = F.mse_loss(head(y), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0], losses


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias", [(1, False, False, True), (2, True, True, True),
                                                                   (2, False, False, False)])
def test_against_torch(kind, layers, bidirectional, batch_first, bias):
    torch = pytest.importorskip("torch", reason="the torch comparison needs python3-torch")
    torch.manual_seed(layers + 3 * bidirectional)
    T, B, I, H = 5, 3, 4, 6
    D = 2 if bidirectional else 1
    tm = getattr(torch.nn, kind)(I, H, num_layers=layers, bias=bias, batch_first=batch_first,
                                 bidirectional=bidirectional)
    m = getattr(nn, kind)(I, H, num_layers=layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
    m.load_state_dict(tm.state_dict())
    x = torch.randn((B, T, I) if batch_first else (T, B, I), requires_grad=True)
    h0 = torch.randn(layers * D, B, H, requires_grad=True)
    c0 = torch.randn(layers * D, B, H, requires_grad=True)
    xo, ho, co = (t(v.detach().numpy(), True) for v in (x, h0, c0))
    if kind == "LSTM":
        y, (hn, cn) = tm(x, (h0, c0))
        yo, (hno, cno) = m(xo, (ho, co))
    else:
        y, hn = tm(x, h0)
        yo, hno = m(xo, ho)
    gy, gh = torch.randn_like(y), torch.randn_like(hn)
    loss = (y * gy).sum() + (hn * gh).sum()
    lo = F.add(F.sum(F.mul(yo, t(gy.numpy()))), F.sum(F.mul(hno, t(gh.numpy()))))
    if kind == "LSTM":
        gc = torch.randn_like(cn)
        loss = loss + (cn * gc).sum()
        lo = F.add(lo, F.sum(F.mul(cno, t(gc.numpy()))))
        assert_close(f64(cno), cn.detach().double().numpy(), "float32", "c_n", abs_floor=1e-6)
    assert_close(f64(yo), y.detach().double().numpy(), "float32", "output", abs_floor=1e-6)
    assert_close(f64(hno), hn.detach().double().numpy(), "float32", "h_n", abs_floor=1e-6)
    loss.backward()
    lo.backward()
    pairs = [(xo, x, "input"), (ho, h0, "h0")] + ([(co, c0, "c0")] if kind == "LSTM" else [])
    pairs += [(p, tp, n) for (n, p), tp in zip(m.named_parameters(), tm.parameters())]
    for a, b, n in pairs:
        assert_close(f64(a.grad), b.grad.double().numpy(), "float32", f"gradient of {n}", abs_floor=1e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_module_packed_sequence_unsorted(kind, rng):
    """nn.utils.rnn.pack_padded_sequence (enforce_sorted=False) through the module and back: each
    sequence as if alone, h_n in the caller's batch order, gradients zero on the padding."""
    R = nn.utils.rnn
    I, H, lens = 2, 3, [2, 4, 3]
    m = getattr(nn, kind)(I, H, num_layers=2, bidirectional=True, batch_first=True)
    params = [f64(p) for p in m._flat_weights]
    x = rng.standard_normal((3, 4, I)).astype(np.float32).astype(np.float64)
    h0 = rng.standard_normal((4, 3, H)).astype(np.float32).astype(np.float64)
    c0 = rng.standard_normal((4, 3, H)).astype(np.float32).astype(np.float64)
    xo, ho, co = t(x, True), t(h0, True), t(c0)
    packed = R.pack_padded_sequence(xo, lens, batch_first=True, enforce_sorted=False)
    np.testing.assert_array_equal(packed.batch_sizes.numpy(), [3, 3, 2, 1])
    np.testing.assert_array_equal(packed.sorted_indices.numpy(), [1, 2, 0])
    y, s = m(packed, (ho, co) if kind == "LSTM" else ho)
    assert isinstance(y, R.PackedSequence)
    hn = s[0] if kind == "LSTM" else s
    yp, yl = R.pad_packed_sequence(y, batch_first=True)
    np.testing.assert_array_equal(yl.numpy(), lens)
    assert tuple(yp.shape) == (3, 4, 2 * H)
    for b, n in enumerate(lens):
        ry, rh, rc = rnn_ref(kind, x[b, :n, None, :], h0[:, b:b + 1], c0[:, b:b + 1], params, 2, True, True, False)
        assert_close(f64(yp)[b, :n], ry[:, 0], "float32", f"sequence {b}", abs_floor=1e-6)
        assert np.all(f64(yp)[b, n:] == 0)
        assert_close(f64(hn)[:, b], rh[:, 0], "float32", f"h_n {b}", abs_floor=1e-6)
        if kind == "LSTM":
            assert_close(f64(s[1])[:, b], rc[:, 0], "float32", f"c_n {b}", abs_floor=1e-6)
    F.add(F.sum(F.mul(yp, yp)), F.sum(hn)).backward()
    gx = f64(xo.grad)
    assert np.all(gx[0, 2:] == 0) and np.all(gx[2, 3:] == 0) and np.any(gx[0, :2] != 0)
    b, n = 0, lens[0]
    xb = x[b, :n, None, :].copy()
    hb, cb = h0[:, b:b + 1].copy(), c0[:, b:b + 1].copy()

    def loss():
        ry, rh, _ = rnn_ref(kind, xb, hb, cb, params, 2, True, True, False)
        return np.sum(ry ** 2) + np.sum(rh)
    want_x, want_h = numeric_grads(loss, [xb, hb])
    assert_close(gx[b, :n], want_x[:, 0], "float32", "packed input gradient", abs_floor=1e-5)
    assert_close(f64(ho.grad)[:, b], want_h[:, 0], "float32", "packed h0 gradient", abs_floor=1e-5)


def test_pack_and_pad_helpers():
    R = nn.utils.rnn
    a, b = t(np.arange(6).reshape(3, 2)), t(np.arange(2).reshape(1, 2) + 10)
    p = R.pack_sequence([a, b])
    np.testing.assert_array_equal(p.batch_sizes.numpy(), [2, 1, 1])
    np.testing.assert_array_equal(p.data.numpy(), [[0, 1], [10, 11], [2, 3], [4, 5]])
    padded, lens = R.pad_packed_sequence(p, padding_value=-1.0, total_length=4)
    assert tuple(padded.shape) == (4, 2, 2)
    np.testing.assert_array_equal(lens.numpy(), [3, 1])
    np.testing.assert_array_equal(padded.numpy()[:, 1], [[10, 11], [-1, -1], [-1, -1], [-1, -1]])
    with pytest.raises(RuntimeError, match="sorted"):
        R.pack_sequence([b, a])


def test_packed_against_torch():
    torch = pytest.importorskip("torch", reason="the torch comparison needs python3-torch")
    torch.manual_seed(5)
    tm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    m.load_state_dict(tm.state_dict())
    x = torch.randn(5, 3, 3, requires_grad=True)
    lens = [3, 5, 2]
    y, (hn, cn) = tm(torch.nn.utils.rnn.pack_padded_sequence(x, lens, enforce_sorted=False))
    yp, _ = torch.nn.utils.rnn.pad_packed_sequence(y)
    ((yp ** 2).sum() + hn.sum() + cn.sum()).backward()
    xo = t(x.detach().numpy(), True)
    yo, (hno, cno) = m(nn.utils.rnn.pack_padded_sequence(xo, lens, enforce_sorted=False))
    ypo, _ = nn.utils.rnn.pad_packed_sequence(yo)
    F.add(F.add(F.sum(F.mul(ypo, ypo)), F.sum(hno)), F.sum(cno)).backward()
    assert_close(f64(ypo), yp.detach().double().numpy(), "float32", "output", abs_floor=1e-6)
    assert_close(f64(hno), hn.detach().double().numpy(), "float32", "h_n", abs_floor=1e-6)
    assert_close(f64(xo.grad), x.grad.double().numpy(), "float32", "input gradient", abs_floor=1e-5)
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert_close(f64(p.grad), tp.grad.double().numpy(), "float32", "weight gradient", abs_floor=1e-5)


def test_lstm_proj_size_parameters_and_checks(rng):
    """proj_size: weight_hh [4H, P], weight_hr [P, H] after the biases (torch's order), h [.., P]."""
    m = nn.LSTM(5, 6, num_layers=2, bidirectional=True, proj_size=3)
    want = []
    for layer in range(2):
        for sfx in ("", "_reverse"):
            want += [f"{w}_l{layer}{sfx}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
    assert [n for n, _ in m.named_parameters()] == want
    shapes = dict((n, tuple(p.shape)) for n, p in m.named_parameters())
    assert shapes["weight_ih_l1"] == (24, 6) and shapes["weight_hh_l0"] == (24, 3)
    assert shapes["weight_hr_l1_reverse"] == (3, 6)
    assert [n for n, _ in nn.LSTM(5, 6, bias=False, proj_size=2).named_parameters()] == \
        ["weight_ih_l0", "weight_hh_l0", "weight_hr_l0"]
    y, (hn, cn) = m(t(rng.standard_normal((4, 2, 5)).astype(np.float32)))
    assert tuple(y.shape) == (4, 2, 6) and tuple(hn.shape) == (4, 2, 3) and tuple(cn.shape) == (4, 2, 6)
    with pytest.raises(RuntimeError, match="hidden size"):  # h0 must be [L*D, B, P]
        m(t(np.zeros((4, 2, 5))), (t(np.zeros((4, 2, 6))), t(np.zeros((4, 2, 6)))))
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        nn.LSTM(5, 6, proj_size=6)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(5, 6, proj_size=2)
    with pytest.raises(RuntimeError, match="hidden size"):  # the packed path checks h0 the same way
        m(nn.utils.rnn.pack_padded_sequence(t(np.zeros((4, 2, 5))), [4, 3]),
          (t(np.zeros((4, 2, 6))), t(np.zeros((4, 2, 6)))))


@pytest.mark.parametrize("bidirectional,batch_first,bias", [(False, False, True), (True, False, True),
                                                            (False, True, True), (True, True, False)])
def test_lstm_proj_size_against_torch(bidirectional, batch_first, bias):
    """nn.LSTM(proj_size=P) with a torch state_dict against torch.nn.LSTM(proj_size=P) in float64:
    output, h_n, c_n and the gradients of the input, h0, c0 and every weight; 2 layers."""
    torch = pytest.importorskip("torch", reason="the torch comparison needs python3-torch")
    torch.manual_seed(7 + 2 * bidirectional + batch_first)
    T, B, I, H, P, L = 5, 3, 4, 6, 3, 2
    D = 2 if bidirectional else 1
    tm = torch.nn.LSTM(I, H, num_layers=L, bias=bias, batch_first=batch_first, bidirectional=bidirectional,
                       proj_size=P).double()
    m = nn.LSTM(I, H, num_layers=L, bias=bias, batch_first=batch_first, bidirectional=bidirectional, proj_size=P)
    m.load_state_dict({k: v.float() for k, v in tm.state_dict().items()})
    x = torch.randn((B, T, I) if batch_first else (T, B, I), dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(L * D, B, P, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(L * D, B, H, dtype=torch.float64, requires_grad=True)
    xo, ho, co = (t(v.detach().float().numpy(), True) for v in (x, h0, c0))
    y, (hn, cn) = tm(x, (h0, c0))
    yo, (hno, cno) = m(xo, (ho, co))
    for a, b, n in ((yo, y, "output"), (hno, hn, "h_n"), (cno, cn, "c_n")):
        assert_close(f64(a), b.detach().numpy(), "float32", n, abs_floor=1e-6)
    gy, gh, gc = torch.randn_like(y), torch.randn_like(hn), torch.randn_like(cn)
    ((y * gy).sum() + (hn * gh).sum() + (cn * gc).sum()).backward()
    lo = F.add(F.add(F.sum(F.mul(yo, t(gy.float().numpy()))), F.sum(F.mul(hno, t(gh.float().numpy())))),
               F.sum(F.mul(cno, t(gc.float().numpy()))))
    lo.backward()
    pairs = [(xo, x, "input"), (ho, h0, "h0"), (co, c0, "c0")]
    pairs += [(p, tp, n) for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters())]
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for a, b, n in pairs:
        assert a.grad is not None, n
        assert_close(f64(a.grad), b.grad.numpy(), "float32", f"gradient of {n}", abs_floor=1e-5)


@pytest.mark.parametrize("bidirectional,lens", [(False, [3, 5, 2, 5]), (True, [3, 5, 2, 5]), (True, [1, 4, 2])])
def test_lstm_proj_size_packed_against_torch(bidirectional, lens):
    """nn.LSTM(proj_size=P) on an unsorted PackedSequence (sequences ending at different steps, equal
    lengths, a length-1 sequence) against torch in float64: padded output, h_n, c_n in the caller's
    batch order and the gradients of the input, h0, c0 and every weight; 2 layers."""
    torch = pytest.importorskip("torch", reason="the torch comparison needs python3-torch")
    torch.manual_seed(11 + bidirectional + len(lens))
    T, B, I, H, P, L = max(lens), len(lens), 4, 6, 3, 2
    D = 2 if bidirectional else 1
    tm = torch.nn.LSTM(I, H, num_layers=L, bidirectional=bidirectional, proj_size=P).double()
    m = nn.LSTM(I, H, num_layers=L, bidirectional=bidirectional, proj_size=P)
    m.load_state_dict({k: v.float() for k, v in tm.state_dict().items()})
    x = torch.randn(T, B, I, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(L * D, B, P, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(L * D, B, H, dtype=torch.float64, requires_grad=True)
    R = torch.nn.utils.rnn
    y, (hn, cn) = tm(R.pack_padded_sequence(x, lens, enforce_sorted=False), (h0, c0))
    yp, _ = R.pad_packed_sequence(y)
    xo, ho, co = (t(v.detach().float().numpy(), True) for v in (x, h0, c0))
    yo, (hno, cno) = m(nn.utils.rnn.pack_padded_sequence(xo, lens, enforce_sorted=False), (ho, co))
    ypo, _ = nn.utils.rnn.pad_packed_sequence(yo)
    for a, b, n in ((ypo, yp, "output"), (hno, hn, "h_n"), (cno, cn, "c_n")):
        assert_close(f64(a), b.detach().numpy(), "float32", n, abs_floor=1e-6)
    gy, gh, gc = torch.randn_like(yp), torch.randn_like(hn), torch.randn_like(cn)
    ((yp * gy).sum() + (hn * gh).sum() + (cn * gc).sum()).backward()
    F.add(F.add(F.sum(F.mul(ypo, t(gy.float().numpy()))), F.sum(F.mul(hno, t(gh.float().numpy())))),
          F.sum(F.mul(cno, t(gc.float().numpy())))).backward()
    pairs = [(xo, x, "input"), (ho, h0, "h0"), (co, c0, "c0")]
    pairs += [(p, tp, n) for (n, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters())]
    for a, b, n in pairs:
        assert a.grad is not None, n
        assert_close(f64(a.grad), b.grad.numpy(), "float32", f"gradient of {n}", abs_floor=1e-5)
