# opsnn.graph (docs/ARCHITECTURE.md, "Framework layer", graph capture): a captured step replayed on
# new data in its static inputs gives what the same step gives run eagerly (same kernels on the
# same data: compared exactly), tensors that outlive the step are never overwritten by the plan,
# the plan reuses memory where lifetimes allow, and misuse raises opsnn.Error with a message.
import numpy as np
import pytest

import opsnn
import opsnn.functional as F
from opsnn import nn
import train_cnn  # examples/train_cnn.py


def mlp(seed=0):
    opsnn.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))


def values(module):
    return [p.detach().numpy() for p in module.parameters()]


def test_mlp_training_step_replays_like_eager():
    rng = np.random.default_rng(0)
    data = [(rng.random((8, 16), np.float32), rng.random((8, 4), np.float32)) for _ in range(8)]
    eager, captured = mlp(), mlp()
    opt_e = opsnn.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    opt_c = opsnn.optim.SGD(captured.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    x, y = opsnn.from_numpy(data[0][0]), opsnn.from_numpy(data[0][1])  # the static inputs

    def step():
        opt_c.zero_grad()
        loss = F.mse_loss(captured(x), y)
        loss.backward()
        opt_c.step()
        return loss

    g = opsnn.graph(step)  # the warm-up step trains on data[0], as the eager loop's first step does
    r = g.memory_report()
    assert r["live_peak_bytes"] <= r["planned_bytes"] <= r["unplanned_bytes"]
    losses_e, losses_c = [], []
    for i, (xb, yb) in enumerate(data):
        opt_e.zero_grad()
        loss = F.mse_loss(eager(opsnn.from_numpy(xb)), opsnn.from_numpy(yb))
        loss.backward()
        opt_e.step()
        losses_e.append(loss.item())
        if i > 0:
            x.copy_(opsnn.from_numpy(xb))
            y.copy_(opsnn.from_numpy(yb))
            g.replay()
            losses_c.append(g.outputs.item())
    assert losses_c == losses_e[1:]
    assert losses_e[-1] < losses_e[0]  # it trains (the comparison is not between two frozen runs)
    for a, b in zip(values(eager), values(captured)):
        np.testing.assert_array_equal(a, b)
    for p_e, p_c in zip(eager.parameters(), captured.parameters()):  # the gradients the step kept
        np.testing.assert_array_equal(p_e.grad.numpy(), p_c.grad.numpy())


def cnn_inputs(seed):
    x, _ = train_cnn.make_data(n=16, seed=seed)
    return x


def test_cnn_inference_replays_like_eager():
    model = train_cnn.make_model(seed=1)
    model.eval()
    x = opsnn.from_numpy(cnn_inputs(0))
    with opsnn.no_grad():
        g = opsnn.graph(lambda: model(x))
        for seed in (1, 2, 3):
            batch = cnn_inputs(seed)
            x.copy_(opsnn.from_numpy(batch))
            g.replay()
            want = model(opsnn.from_numpy(batch)).numpy()
            np.testing.assert_array_equal(g.outputs.numpy(), want)


def test_cnn_training_step_keeps_state_like_eager():
    # BatchNorm's running statistics and SGD's momentum are state updated in place across replays.
    data = [train_cnn.make_data(n=8, seed=s) for s in range(4)]
    eager, captured = train_cnn.make_model(seed=2), train_cnn.make_model(seed=2)
    opt_e = opsnn.optim.SGD(eager.parameters(), lr=0.05, momentum=0.9)
    opt_c = opsnn.optim.SGD(captured.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x, y = opsnn.from_numpy(data[0][0]), opsnn.from_numpy(data[0][1])

    def step():
        opt_c.zero_grad()
        loss = loss_fn(captured(x), y)
        loss.backward()
        opt_c.step()
        return loss

    g = opsnn.graph(step)
    r = g.memory_report()
    assert r["live_peak_bytes"] <= r["planned_bytes"] <= r["unplanned_bytes"]
    for i, (xb, yb) in enumerate(data):
        opt_e.zero_grad()
        loss = loss_fn(eager(opsnn.from_numpy(xb)), opsnn.from_numpy(yb))
        loss.backward()
        opt_e.step()
        if i > 0:
            x.copy_(opsnn.from_numpy(xb))
            y.copy_(opsnn.from_numpy(yb))
            g.replay()
            assert g.outputs.item() == loss.item()
    for (k, a), (_, b) in zip(eager.state_dict().items(), captured.state_dict().items()):
        np.testing.assert_array_equal(a, b, err_msg=k)


def chain(depth, width):
    opsnn.manual_seed(3)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers)


def test_plan_reuses_the_memory_of_dead_intermediates():
    model = chain(8, 128)
    x = opsnn.from_numpy(np.random.default_rng(1).random((64, 128), np.float32))
    with opsnn.no_grad():
        g = opsnn.graph(lambda: model(x))
    r = g.memory_report()
    # 16 intermediates of 32 KiB, each dead once the next layer has read it: a chain needs two
    # at a time (plus the output and the workspaces), far from all of them.
    assert r["blocks"] >= 16
    assert r["live_peak_bytes"] <= r["planned_bytes"] < r["unplanned_bytes"]
    assert r["planned_bytes"] <= r["unplanned_bytes"] // 2
    assert r["kept_bytes"] == 64 * 128 * 4  # the output only
    with opsnn.no_grad():
        want = model(x).numpy()
    calls = opsnn._C.call_stats()["calls"]
    g.replay()
    np.testing.assert_array_equal(g.outputs.numpy(), want)
    assert opsnn._C.call_stats()["calls"] == calls  # a replay only launches: no aclnn call, no phase 1


def test_tensors_alive_after_the_step_are_never_overwritten():
    # The step returns an early intermediate as well: its memory may not be shared with the later
    # ones, and parameters (made before the capture) stay untouched by an inference replay.
    model = chain(4, 64)
    x = opsnn.from_numpy(np.random.default_rng(2).random((32, 64), np.float32))
    before = values(model)
    with opsnn.no_grad():
        g = opsnn.graph(lambda: (model[0](x), model(x)))
        first, out = g.outputs
        for seed in (3, 4):
            batch = np.random.default_rng(seed).random((32, 64), np.float32)
            x.copy_(opsnn.from_numpy(batch))
            g.replay()
            np.testing.assert_array_equal(first.numpy(), model[0](opsnn.from_numpy(batch)).numpy())
            np.testing.assert_array_equal(out.numpy(), model(opsnn.from_numpy(batch)).numpy())
    for a, b in zip(before, values(model)):
        np.testing.assert_array_equal(a, b)
    # Outputs stay valid after the graph is gone (they keep the arena).
    g.reset()
    with opsnn.no_grad():
        np.testing.assert_array_equal(out.numpy(), model(x).numpy())


def test_tensor_released_during_the_capture_is_kept_for_replays():
    # A tensor made before the capture whose last reference the step drops: the replays read it.
    scales = [opsnn.from_numpy(np.full((4, 4), 3.0, np.float32)) for _ in range(2)]  # one per capture pass
    x = opsnn.from_numpy(np.ones((4, 4), np.float32))
    out = opsnn.zeros(4, 4)

    def step():
        out.copy_(F.mul(x, scales.pop()))  # the pass holds the only reference to its scale

    g = opsnn.Graph()
    g.capture(step, warmup=0)
    junk = [opsnn.from_numpy(np.full((4, 4), -1.0, np.float32)) for _ in range(8)]  # would take the freed block
    x.copy_(opsnn.from_numpy(np.full((4, 4), 2.0, np.float32)))
    g.replay()
    np.testing.assert_array_equal(out.numpy(), np.full((4, 4), 6.0, np.float32))
    del junk


def error_message(excinfo):
    return str(excinfo.value)


def test_misuse_raises_clear_errors():
    x = opsnn.from_numpy(np.ones((2, 2), np.float32))
    g = opsnn.Graph()
    with pytest.raises(opsnn.Error, match="not captured"):
        g.replay()
    with pytest.raises(opsnn.Error, match="host read"):
        g.capture(lambda: F.add(x, x).numpy(), warmup=0)
    with pytest.raises(opsnn.Error, match="host read"):
        g.capture(lambda: F.add(x, x).item() if False else opsnn.synchronize(), warmup=0)
    with pytest.raises(opsnn.Error, match="frozen"):
        g.capture(lambda: F.add(x, opsnn.from_numpy(np.ones((2, 2), np.float32))), warmup=0)
    with pytest.raises(opsnn.Error, match="do not nest"):
        g.capture(lambda: opsnn.graph(lambda: F.add(x, x), warmup=0), warmup=0)
    shapes = iter([(2, 2), (3, 3)])
    allocated = opsnn.memory_allocated()
    with pytest.raises(opsnn.Error, match="allocate the same way"):  # found in the placing pass
        g.capture(lambda: opsnn.zeros(*next(shapes)), warmup=0)
    assert opsnn.memory_allocated() == allocated  # the failed capture's arena and blocks are gone
    state = {"h": opsnn.zeros(2, 2)}

    def carry():
        state["h"] = F.add(state["h"], x)

    with pytest.raises(opsnn.Error, match="recording pass made"):
        g.capture(carry, warmup=1)
    assert not g.captured
    # After the failures nothing is left capturing: eager work and a new capture run.
    np.testing.assert_array_equal(F.add(x, x).numpy(), np.full((2, 2), 2.0, np.float32))
    g.capture(lambda: F.add(x, x))
    with pytest.raises(opsnn.Error, match="captured already"):
        g.capture(lambda: F.add(x, x))
    g.replay()
    np.testing.assert_array_equal(g.outputs.numpy(), np.full((2, 2), 2.0, np.float32))
    g.reset()
    with pytest.raises(opsnn.Error, match="not captured"):
        g.replay()


def test_adam_step_inside_a_capture_raises():
    # Adam's per-step hyper-parameters are made on the host: a capture would freeze the step count.
    model = mlp()
    opt = opsnn.optim.Adam(model.parameters(), lr=1e-3)
    x, y = opsnn.from_numpy(np.ones((2, 16), np.float32)), opsnn.from_numpy(np.ones((2, 4), np.float32))

    def step():
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()

    with pytest.raises(opsnn.Error, match="frozen"):
        opsnn.graph(step)


def random_program(seed, steps=60):
    """A script of element-wise steps over tensors of four sizes, some results dropped at random
    points: lifetimes of every length for the plan. Returns run(inputs) -> the tensors left alive."""
    rng = np.random.default_rng(seed)
    live = [1] * 4  # tensors alive per size class (the inputs)
    script = []
    for _ in range(steps):
        k = int(rng.integers(4))
        i, j = (int(v) for v in rng.integers(live[k], size=2))
        drop = int(rng.integers(live[k] + 1)) if live[k] > 1 and rng.random() < 0.6 else None
        script.append((k, i, j, drop))
        live[k] += 1 - (drop is not None)

    def run(inputs):
        pools = [[t] for t in inputs]
        for k, i, j, drop in script:
            pool = pools[k]
            pool.append(F.add(F.mul(pool[i], 0.5), F.sin(pool[j])))  # temporaries die at once
            if drop is not None:
                del pool[drop]
        return [t for pool in pools for t in pool]
    return run


SIZES = (16, 1000, 5000, 40000)


@pytest.mark.parametrize("seed", range(4))
def test_random_lifetimes_replay_like_eager(seed):
    run = random_program(seed)
    rng = np.random.default_rng(100 + seed)
    inputs = [opsnn.from_numpy(rng.standard_normal(n).astype(np.float32)) for n in SIZES]
    g = opsnn.Graph()
    outs = g.capture(run, inputs, warmup=0)
    r = g.memory_report()
    assert r["live_peak_bytes"] <= r["planned_bytes"] <= r["unplanned_bytes"]
    for _ in range(2):
        fresh = [rng.standard_normal(n).astype(np.float32) for n in SIZES]
        for t, a in zip(inputs, fresh):
            t.copy_(opsnn.from_numpy(a))
        g.replay()
        want = run([opsnn.from_numpy(a) for a in fresh])
        assert len(outs) == len(want)
        for o, w in zip(outs, want):
            np.testing.assert_array_equal(o.numpy(), w.numpy())


def test_the_step_runs_eagerly_then_twice_in_capture():
    x = opsnn.from_numpy(np.ones(3, np.float32))
    seen = []

    def step():
        seen.append(opsnn.is_capturing())
        return F.add(x, 1.0)

    opsnn.graph(step, warmup=2)
    assert seen == [False, False, True, True]
    assert not opsnn.is_capturing()


def test_empty_tensors_in_a_step():
    x = opsnn.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))

    def step():
        empty = F.add(x[:, :0], 1.0)  # a 0-element result: its block still lies in the arena
        return F.mul(x, 2.0), empty

    g = opsnn.graph(step)
    x.copy_(opsnn.from_numpy(np.ones((2, 3), np.float32)))
    g.replay()
    out, empty = g.outputs
    assert empty.shape == (2, 0)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 2.0, np.float32))
