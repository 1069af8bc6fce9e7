# The executor cache (opsnn::OpCall): a repeated call launches the kept executor with re-bound
# addresses, bit-identical to running phase 1 again; different descriptors (shapes, strides,
# scalar values, aliasing) never share an executor.
import numpy as np
import pytest

import opsnn
import opsnn.functional as F
import train_mlp


@pytest.fixture
def cache_on():
    opsnn.set_executor_cache(True)
    yield
    opsnn.set_executor_cache(True)


def _train(task, enabled):
    opsnn.set_executor_cache(enabled)
    opsnn.reset_call_stats()
    init, losses, final = train_mlp.train(task, steps=15)
    return losses, final, opsnn.call_stats()


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_training_is_bit_identical_with_and_without_the_cache(cache_on, task):
    off_losses, off_w, off_stats = _train(task, False)
    assert off_stats["cache_hits"] == 0 and off_stats["cache_entries"] == 0
    on_losses, on_w, on_stats = _train(task, True)
    assert on_losses == off_losses
    for k in off_w:
        assert np.array_equal(on_w[k], off_w[k]), k
    # the loop repeats the same calls: after the first step nearly all are hits
    assert on_stats["cache_hits"] > 0.85 * on_stats["calls"], on_stats
    assert on_stats["cache_uncached"] == 0, on_stats


def test_every_tested_op_matches_the_uncached_call(cache_on, rng):
    # each op twice with the cache (miss, then hit on other buffers) against the cache off
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.uniform(0.5, 2, (6,)).astype(np.float32)
    cls = rng.integers(0, 6, size=4)
    calls = [lambda x, y: x + y, lambda x, y: F.sub(x, y, alpha=2), lambda x, y: x * y, lambda x, y: x / y,
             lambda x, y: F.pow(F.abs(x), y), lambda x, y: F.maximum(x, y), lambda x, y: x > y,
             lambda x, y: F.where(x > 0, x, y), lambda x, y: F.relu(x), lambda x, y: F.gelu(x),
             lambda x, y: F.sigmoid(x), lambda x, y: F.tanh(x), lambda x, y: F.leaky_relu(x, 0.3),
             lambda x, y: F.softmax(x, 1), lambda x, y: F.log_softmax(x, 0), lambda x, y: x.sum(1),
             lambda x, y: F.mean(x), lambda x, y: x @ x.T, lambda x, y: F.mse_loss(x, y.expand(4, 6)),
             lambda x, y: F.cross_entropy(x, opsnn.tensor(cls)), lambda x, y: x.T.contiguous(),
             lambda x, y: x.to(opsnn.float16), lambda x, y: F.nll_loss(F.log_softmax(x, 1), opsnn.tensor(cls))]
    for i, f in enumerate(calls):
        results = []
        for enabled in (False, True, True):
            opsnn.set_executor_cache(enabled)
            x = opsnn.from_numpy(a.copy())  # fresh buffers each time: new addresses
            y = opsnn.from_numpy(b.copy())
            results.append(f(x, y).numpy())
        assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[2]), i


def test_gradients_match_with_and_without_the_cache(cache_on, rng):
    a = rng.standard_normal((5, 3)).astype(np.float32)
    grads = []
    for enabled in (False, True, True):
        opsnn.set_executor_cache(enabled)
        x = opsnn.tensor(a, requires_grad=True)
        (F.softmax(x @ x.T, 1) * F.tanh(x).sum()).sum().backward()
        grads.append(x.grad.numpy())
    assert np.array_equal(grads[0], grads[1]) and np.array_equal(grads[0], grads[2])


def test_descriptors_that_differ_do_not_share_an_executor(cache_on):
    opsnn.clear_executor_cache()
    opsnn.reset_call_stats()
    x = opsnn.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert (x + 1).tolist() == [[2, 3], [4, 5]]
    assert (x + 2).tolist() == [[3, 4], [5, 6]]            # another scalar value
    assert (x.T + 1).tolist() == [[2, 4], [3, 5]]          # other strides
    assert (x[1] + 1).tolist() == [4, 5]                   # other shape / offset
    assert (x + 1).tolist() == [[2, 3], [4, 5]]            # the first descriptor again: a hit
    s = opsnn.call_stats()
    assert s["cache_hits"] >= 1 and s["cache_misses"] >= 4
    # aliasing: in place (out is self) and out-of-place calls of the same shapes are distinct
    y = opsnn.tensor([1.0, 2.0, 3.0])
    z = opsnn.tensor([10.0, 20.0, 30.0])
    F.add_(y, z)
    F.add_(y, y)            # self aliases other
    assert y.tolist() == [22.0, 44.0, 66.0]
    w = opsnn.tensor([1.0, 2.0, 3.0])
    F.add_(w, z)
    assert w.tolist() == [11.0, 22.0, 33.0]
    F.add_(w, w)
    assert w.tolist() == [22.0, 44.0, 66.0]


def test_errors_are_not_cached(cache_on):
    a = opsnn.zeros(3, 4)
    for _ in range(2):
        with pytest.raises(opsnn.Error, match="broadcast"):
            a + opsnn.zeros(5)
    assert (a + 1).tolist() == [[1.0] * 4] * 3


def test_cache_can_be_turned_off():
    opsnn.set_executor_cache(False)
    try:
        assert not opsnn.executor_cache_enabled()
        opsnn.reset_call_stats()
        x = opsnn.ones(3)
        for _ in range(3):
            x = x + 1
        s = opsnn.call_stats()
        assert s["cache_hits"] == 0 and s["cache_entries"] == 0 and s["cache_uncached"] >= 3
    finally:
        opsnn.set_executor_cache(True)


def test_cnn_training_is_bit_identical_with_and_without_the_cache(cache_on):
    """The nn modules' families (conv, batch norm, pooling, optim, ...) under the cache."""
    import train_cnn
    runs = []
    for enabled in (False, True):
        opsnn.set_executor_cache(enabled)
        opsnn.reset_call_stats()
        _, losses, model = train_cnn.train(steps=8)
        runs.append((losses, model.state_dict(), opsnn.call_stats()))
    (off_l, off_w, off_s), (on_l, on_w, on_s) = runs
    assert off_s["cache_hits"] == 0
    assert on_l == off_l
    for k in off_w:
        assert np.array_equal(on_w[k], off_w[k]), k
    st = opsnn.executor_cache_stats()
    assert st["hit_rate"] > 0.7, (st, on_s)


def test_every_nn_module_op_matches_the_uncached_call(cache_on, rng):
    """Forward and backward of each module op twice with the cache (a miss, then a hit on other
    buffers) against the cache off, bit for bit (results, gradients, running statistics, state)."""
    x4 = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    wt = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    g4 = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    b4 = rng.uniform(-0.5, 0.5, 4).astype(np.float32)
    idx = rng.integers(0, 5, (3, 4))
    emb = rng.standard_normal((5, 6)).astype(np.float32)

    def run(f, arrays):
        ts = [opsnn.from_numpy(a.copy()).requires_grad_() for a in arrays]  # fresh buffers: new addresses
        out = f(*ts)
        outs = out if isinstance(out, tuple) else (out,)
        (outs[0] * 1.5).sum().backward()
        return [o.detach().numpy() for o in outs] + [t.grad.numpy() for t in ts if t.grad is not None]

    def bn(x, g, b):
        rm, rv = opsnn.zeros(4), opsnn.ones(4)
        y = F.batch_norm(x, rm, rv, g, b, True, 0.1)
        return y, rm, rv

    calls = [(lambda x, w_: F.conv2d(x, w_, None, 2, 1), [x4, w]),
             (lambda x, w_: F.conv_transpose2d(x, w_, None, 2, 1, 1), [x4, wt]),
             (bn, [x4, g4, b4]),
             (lambda x, g, b: F.layer_norm(x, [6], g[:1].expand(6) if False else None, None), [x4, g4, b4]),
             (lambda x, g, b: F.group_norm(x, 2, g, b), [x4, g4, b4]),
             (lambda x: F.rms_norm(x, [6], opsnn.ones(6)), [x4]),
             (lambda x: F.max_pool2d(x, 2), [x4]),
             (lambda x: F.avg_pool2d(x, 3, 2, 1), [x4]),
             (lambda x: F.adaptive_avg_pool2d(x, (2, 3)), [x4]),
             (lambda e: F.embedding(opsnn.tensor(idx), e), [emb])]
    for i, (f, arrays) in enumerate(calls):
        results = []
        for enabled in (False, True, True):
            opsnn.set_executor_cache(enabled)
            results.append(run(f, arrays))
        for r in results[1:]:
            assert len(r) == len(results[0])
            for a, b in zip(results[0], r):
                assert np.array_equal(a, b), i
    # the optimisers: the same steps with the cache off and on give the same parameters and state
    finals = []
    for enabled in (False, True):
        opsnn.set_executor_cache(enabled)
        ps = [opsnn.nn.Parameter(a.copy()) for a in (w, g4, w, g4)]
        opts = [opsnn.optim.Adam(ps[:1], lr=0.01, weight_decay=0.1), opsnn.optim.AdamW(ps[1:2], lr=0.01, amsgrad=True),
                opsnn.optim.SGD(ps[2:], lr=0.01, momentum=0.9, weight_decay=0.01, nesterov=True)]
        for step in range(3):
            for p in ps:
                p.grad = opsnn.from_numpy(np.full(p.shape, 0.1 * (step + 1), np.float32))
            for o in opts:
                o.step()
        finals.append([p.detach().numpy() for p in ps] +
                      [st[k].numpy() for o in opts[:2] for st in o.state.values() for k in sorted(st)] +
                      [buf.numpy() for buf in opts[2].state.values()])
    for a, b in zip(*finals):
        assert np.array_equal(a, b)


def _rnn_modules():
    return [opsnn.nn.LSTM(5, 4, num_layers=2, bidirectional=True, batch_first=True),
            opsnn.nn.GRU(5, 4, num_layers=2, bidirectional=True)]


def test_rnn_calls_hit_the_cache_on_repeat(cache_on, rng):
    """aclnnLSTM / aclnnGRU and their backward ops take tensor lists (params, hx, the per-step
    lists): a repeated forward, and forward + backward, at the same shapes launch kept executors."""
    x = rng.standard_normal((3, 6, 5)).astype(np.float32)
    for m in _rnn_modules():
        for train in (False, True):
            counts = []
            for _ in range(3):
                opsnn.reset_call_stats()
                xt = opsnn.tensor(x, requires_grad=train)
                if train:
                    m(xt)[0].sum().backward()
                else:
                    with opsnn.no_grad():
                        m(xt)[0].numpy()
                counts.append(opsnn.call_stats())
            last = counts[-1]
            assert last["cache_uncached"] == 0 and last["cache_misses"] == 0, (type(m).__name__, train, counts)
            assert last["cache_hits"] == last["calls"] > 0


def test_rnn_calls_match_the_uncached_call(cache_on, rng):
    """The RNN ops twice with the cache (a miss, then a hit on fresh buffers) against the cache off,
    bit for bit: outputs, states, the gradients of the input, h0 / c0 and every weight; packed
    sequences; LstmBackward with part of its outputMask off (an input without grad)."""
    x = rng.standard_normal((6, 3, 5)).astype(np.float32)
    h0 = rng.standard_normal((4, 3, 4)).astype(np.float32)
    lstm, gru = opsnn.nn.LSTM(5, 4, num_layers=2, bidirectional=True), opsnn.nn.GRU(5, 4, num_layers=2, bidirectional=True)
    pack = opsnn.nn.utils.rnn.pack_padded_sequence

    spoiled = []  # the previous run's inputs, kept alive (new buffers get new addresses) and zeroed

    def run(m, x_grad, packed):
        for t in spoiled:
            F.call("InplaceZero", t.detach())  # an executor still bound to them would read zeros
        spoiled.clear()
        ps = [p for _, p in sorted(m.named_parameters())]
        for p in ps:
            p.grad = None
        xt = opsnn.tensor(x.copy(), requires_grad=x_grad)
        ht = opsnn.tensor(h0.copy(), requires_grad=True)
        hx = (ht, opsnn.tensor(h0.copy() * 0.5, requires_grad=True)) if isinstance(m, opsnn.nn.LSTM) else ht
        out = m(pack(xt, [6, 4, 2]) if packed else xt, hx)
        y = out[0].data if packed else out[0]
        states = out[1] if isinstance(out[1], tuple) else (out[1],)
        ((y * 1.5).sum() + sum((s * 0.5).sum() for s in states)).backward()
        hs = hx if isinstance(hx, tuple) else (hx,)
        spoiled.extend((xt,) + hs)
        return ([y.detach().numpy()] + [s.detach().numpy() for s in states] +
                [t.grad.numpy() for t in (xt,) + hs if t.grad is not None] + [p.grad.numpy() for p in ps])

    for m, x_grad, packed in ((lstm, True, False), (lstm, False, False), (lstm, True, True), (gru, True, False),
                              (gru, True, True)):
        results = []
        for enabled in (False, True, True):
            opsnn.set_executor_cache(enabled)
            results.append(run(m, x_grad, packed))
        for r in results[1:]:
            assert len(r) == len(results[0])
            for a, b in zip(results[0], r):
                assert np.array_equal(a, b), (type(m).__name__, x_grad, packed)
