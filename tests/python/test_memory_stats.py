# opsnn.memory_stats() (the framework's storage counters and the runtime allocator's device usage)
# and opsnn.executor_cache_stats().
import numpy as np

import opsnn
import train_cnn  # examples/train_cnn.py


def test_memory_stats_count_storage_and_peak():
    opsnn.synchronize()
    s0 = opsnn.memory_stats()
    opsnn.reset_peak_memory_stats()
    a = opsnn.zeros(256, 1024)  # 1 MiB of float32
    b = opsnn.zeros(128, 1024)
    s1 = opsnn.memory_stats()
    assert s1["allocated_bytes.all.current"] - s0["allocated_bytes.all.current"] == 1536 * 1024
    assert s1["allocation.all.allocated"] - s0["allocation.all.allocated"] == 2
    assert s1["allocation.all.current"] == s1["allocation.all.allocated"] - s1["allocation.all.freed"]
    assert s1["device_bytes.total"] > 0 and s1["device_bytes.in_use"] >= 1536 * 1024
    del a, b
    s2 = opsnn.memory_stats()
    assert s2["allocated_bytes.all.current"] == s0["allocated_bytes.all.current"]
    assert s2["allocated_bytes.all.peak"] >= s0["allocated_bytes.all.current"] + 1536 * 1024
    assert s2["allocation.all.freed"] - s0["allocation.all.freed"] == 2
    opsnn.reset_peak_memory_stats()
    assert opsnn.max_memory_allocated() == opsnn.memory_allocated()


def test_executor_cache_stats_in_a_training_loop():
    opsnn.reset_call_stats()
    train_cnn.train(steps=6)
    st = opsnn.executor_cache_stats()
    assert st["hits"] > 0 and st["misses"] > 0 and st["entries"] > 0
    assert 0.0 < st["hit_rate"] < 1.0
    assert abs(st["hit_rate"] - st["hits"] / (st["hits"] + st["misses"] + st["uncached"])) < 1e-12
    np.testing.assert_equal(opsnn.call_stats()["cache_hits"], st["hits"])


def test_workspaces_come_from_one_arena():
    ops, F = opsnn, opsnn.functional
    # Every launch takes its workspace from one block on the layer's stream, grown to the largest
    # need: repeated calls allocate nothing, a larger need grows it once.
    x = ops.randn(2, 8, 24, 24)
    w = ops.randn(16, 8, 3, 3)
    F.conv2d(x, w, padding=1)
    ops.synchronize()
    s0 = ops.call_stats()
    assert s0["arena_bytes"] >= s0["max_workspace"] > 0
    for _ in range(5):
        F.conv2d(x, w, padding=1)
    s1 = ops.call_stats()
    assert s1["arena_grows"] == s0["arena_grows"] and s1["arena_bytes"] == s0["arena_bytes"]
    big = ops.randn(2, 8, 96, 96)
    y = F.conv2d(big, w, padding=1)
    s2 = ops.call_stats()
    assert s2["arena_bytes"] >= s2["max_workspace"]
    assert s2["arena_grows"] <= s1["arena_grows"] + 1
    # and the results are right with the shared block (a float64 reference of one output channel)
    xn, wn = big.numpy().astype(np.float64), w.numpy().astype(np.float64)
    pad = np.pad(xn, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = sum(pad[:, c, i:i + 96, j:j + 96] * wn[3, c, i, j] for c in range(8) for i in range(3) for j in range(3))
    assert np.abs(y.numpy()[:, 3] - ref).max() < 1e-3 * np.abs(ref).max()
