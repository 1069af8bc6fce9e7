# A few cases of aclnnLSTM / aclnnGRU and their gradients (src/ops/rnn/rnn.ops) against PyTorch 1.13
# (torch.nn.LSTM / GRU and autograd), where torch is installed: the conventions (params order, gate
# order, hx / hy layouts, bidirectional, packed sequences) checked against the implementation they
# follow. Here the sequences go in packed form (equal lengths: the padded case); the binding also
# takes batchSizes=None (padded input), which nn.LSTM / GRU use (tests/python/test_nn_rnn.py). The acceptance is the C++ harness tests/ops/test_op_table_rnn.cpp
# (float64 references); torch 1.13's Python API has no CPU _thnn_fused_lstm_cell to compare with.
import numpy as np
import pytest

import opsnn as ops
import opsnn.functional as F

from conftest import assert_close

torch = pytest.importorskip("torch", reason="the torch cross-check needs python3-torch")


def _t(a):
    return ops.from_numpy(np.ascontiguousarray(a.detach().numpy() if hasattr(a, "detach") else a, dtype=np.float32))


def _list(ts):  # F.call unwraps tensors, not the tensors of a list
    return [t._t for t in ts]


def _empty(shape):
    return ops.empty(*shape, dtype=ops.float32)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias", [(1, False, False, True), (2, True, True, True),
                                                                   (3, True, False, False)])
def test_stack_matches_torch(kind, layers, bidirectional, batch_first, bias):
    torch.manual_seed(layers * 7 + bidirectional)
    T, B, I, H = 5, 3, 4, 6
    D = 2 if bidirectional else 1
    mod = getattr(torch.nn, kind)(I, H, num_layers=layers, bias=bias, batch_first=batch_first,
                                  bidirectional=bidirectional)
    x = torch.randn(B, T, I) if batch_first else torch.randn(T, B, I)
    h0 = torch.randn(layers * D, B, H)
    c0 = torch.randn(layers * D, B, H)
    with torch.no_grad():
        if kind == "LSTM":
            y, (hy, cy) = mod(x, (h0, c0))
        else:
            y, hy = mod(x, h0)
    if batch_first:  # packed data is time-major
        x, y = x.transpose(0, 1), y.transpose(0, 1)
    sizes = ops.from_numpy(np.full(T, B, dtype=np.int64))
    params = _list(_t(p) for p in mod._flat_weights)
    out, ohy, ocy = _empty((T * B, D * H)), _empty(hy.shape), _empty(hy.shape)
    lists = [[] for _ in range(7 if kind == "LSTM" else 5)]  # not requested
    if kind == "LSTM":
        F.call("LSTM", _t(x.reshape(T * B, I)), params, _list([_t(h0), _t(c0)]), sizes, bias, layers, 0.0, False,
               bidirectional, False, out, ohy, ocy, *lists)
        assert_close(ocy.numpy(), cy.numpy(), "float32", "cy", abs_floor=1e-6)
    else:
        F.call("GRU", _t(x.reshape(T * B, I)), params, _t(h0), sizes, bias, layers, 0.0, False, bidirectional, False,
               out, ohy, *lists)
    assert_close(out.numpy(), y.reshape(T * B, D * H).numpy(), "float32", "output", abs_floor=1e-6)
    assert_close(ohy.numpy(), hy.numpy(), "float32", "hy", abs_floor=1e-6)


def test_packed_lstm_matches_torch():
    torch.manual_seed(3)
    I, H, lens = 3, 4, [5, 3, 2]
    mod = torch.nn.LSTM(I, H, num_layers=2, bidirectional=True)
    seqs = [torch.randn(n, I) for n in lens]
    packed = torch.nn.utils.rnn.pack_sequence(seqs)
    h0, c0 = torch.randn(4, 3, H), torch.randn(4, 3, H)
    with torch.no_grad():
        y, (hy, cy) = mod(packed, (h0, c0))
    out, ohy, ocy = _empty(y.data.shape), _empty(hy.shape), _empty(cy.shape)
    F.call("LSTM", _t(packed.data), _list(_t(p) for p in mod._flat_weights), _list([_t(h0), _t(c0)]),
           ops.from_numpy(packed.batch_sizes.numpy().astype(np.int64)), True, 2, 0.0, False, True, False, out, ohy, ocy,
           *[[] for _ in range(7)])
    assert_close(out.numpy(), y.data.numpy(), "float32", "output", abs_floor=1e-6)
    assert_close(ohy.numpy(), hy.numpy(), "float32", "hy", abs_floor=1e-6)
    assert_close(ocy.numpy(), cy.numpy(), "float32", "cy", abs_floor=1e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gradients_match_torch_autograd(kind):
    torch.manual_seed(11)
    T, B, I, H, L, D = 4, 2, 3, 5, 2, 2
    mod = getattr(torch.nn, kind)(I, H, num_layers=L, bidirectional=True)
    x = torch.randn(T, B, I, requires_grad=True)
    h0 = torch.randn(L * D, B, H, requires_grad=True)
    c0 = torch.randn(L * D, B, H, requires_grad=True)
    y, state = mod(x, (h0, c0)) if kind == "LSTM" else mod(x, h0)
    hy_t, cy_t = state if kind == "LSTM" else (state, None)
    dy, dh, dc = torch.randn_like(y), torch.randn(L * D, B, H), torch.randn(L * D, B, H)
    loss = (dy * y).sum() + (dh * hy_t).sum() + ((dc * cy_t).sum() if kind == "LSTM" else 0)
    grads = torch.autograd.grad(loss, [x, h0] + ([c0] if kind == "LSTM" else []) + list(mod._flat_weights))
    # Forward (train: the per-step lists), then the backward from them; packed form with equal lengths.
    sizes = ops.from_numpy(np.full(T, B, dtype=np.int64))
    params = _list(_t(p) for p in mod._flat_weights)
    out, hy, cy = _empty((T * B, D * H)), _empty((L * D, B, H)), _empty((L * D, B, H))
    lists = [_list(_empty((T * B, H)) for _ in range(L * D)) for _ in range(7 if kind == "LSTM" else 5)]
    xs = _t(x.reshape(T * B, I))
    dx, dhp, dcp = _empty((T * B, I)), _empty((L * D, B, H)), _empty((L * D, B, H))
    dparams = [_empty(p.shape) for p in mod._flat_weights]
    if kind == "LSTM":
        hx = _list([_t(h0), _t(c0)])
        F.call("LSTM", xs, params, hx, sizes, True, L, 0.0, True, True, False, out, hy, cy, *lists)
        F.call("LstmBackward", xs, hx, params, _t(dy.reshape(T * B, D * H)), _t(dh), _t(dc), *lists, sizes, True, L,
               0.0, True, True, False, None, dx, dhp, dcp, _list(dparams))
        got = [dx, dhp, dcp] + dparams
    else:
        F.call("GRU", xs, params, _t(h0), sizes, True, L, 0.0, True, True, False, out, hy, *lists)
        F.call("GRUBackward", xs, params, _t(h0), _t(dy.reshape(T * B, D * H)), _t(dh), *lists, sizes, True, L, True,
               False, dx, dhp, _list(dparams))
        got = [dx, dhp] + dparams
    for k, (a, g) in enumerate(zip(got, grads)):
        assert_close(a.numpy().reshape(g.shape), g.numpy(), "float32", f"gradient {k}", abs_floor=1e-5)
