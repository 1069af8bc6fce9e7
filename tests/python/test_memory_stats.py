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
