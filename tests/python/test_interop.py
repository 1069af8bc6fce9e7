# Zero-copy exchange (issue #17): DLPack both ways and numpy views of a tensor's memory. numpy
# (1.22+) is a DLPack producer and consumer, so every case runs without torch; the torch cases
# (bfloat16, torch's own strides) run where torch is installed.
import gc

import numpy as np
import pytest

import opsnn as ops

FLOAT_DTYPES = [(np.float32, ops.float32), (np.float16, ops.float16)]
INT_DTYPES = [(np.int8, ops.int8), (np.int32, ops.int32), (np.int64, ops.int64)]


def _base(t):
    return np.asarray(t._t).__array_interface__["data"][0]


@pytest.mark.parametrize("npdt,dt", FLOAT_DTYPES + INT_DTYPES)
def test_export_to_numpy_shares_memory_and_views(npdt, dt):
    src = np.arange(24).reshape(2, 3, 4).astype(npdt)
    t = ops.from_numpy(src)
    for view in (t, t.transpose(0, 2), t[1], t[:, 1:, ::2], t.permute(2, 0, 1)):
        a = np.from_dlpack(view)
        np.testing.assert_array_equal(a, view.numpy())
        assert a.dtype == np.dtype(npdt)
        # the same memory: the first element's address is the view's
        assert a.__array_interface__["data"][0] == view._t.data_ptr
    # a write through opsnn shows in the exported array
    a = np.from_dlpack(t[:, :, 1])
    t[:, :, 1].fill_(5)
    assert (a == 5).all()


@pytest.mark.parametrize("npdt,dt", FLOAT_DTYPES + INT_DTYPES)
def test_import_from_numpy_views_without_copy(npdt, dt):
    rng = np.random.default_rng(3)
    full = (rng.standard_normal((5, 6, 7)) * 10).astype(npdt)
    for view in (full, full[:, ::2], full.transpose(2, 0, 1), full[3:, 1:5, 2]):
        t = ops.from_dlpack(view)
        assert t.dtype is dt and t.shape == view.shape
        assert t.strides == tuple(s // view.itemsize for s in view.strides)
        assert t._t.data_ptr == view.__array_interface__["data"][0]
        np.testing.assert_array_equal(t.numpy(), view)
        # an op reads the producer's memory through the view's strides (float64 reference)
        if dt.is_floating_point:
            got = (t * 2 + 1).numpy().astype(np.float64)
            np.testing.assert_allclose(got, view.astype(np.float64) * 2 + 1, rtol=1e-3)
    # writes through opsnn land in the producer's array
    t = ops.from_dlpack(full[:, ::2])
    t.fill_(3)
    ops.synchronize()
    assert (full[:, ::2] == 3).all() and not (full[:, 1::2] == 3).all()


def test_imported_memory_outlives_the_producer_object():
    a = np.arange(1000, dtype=np.float32)
    t = ops.from_dlpack(a[10:20])
    del a
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), np.arange(10, 20, dtype=np.float32))


def test_exported_tensor_outlives_the_opsnn_tensor():
    t = ops.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    a = np.from_dlpack(t.transpose(0, 1))
    del t
    gc.collect()
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4).T)


def test_round_trip_is_the_same_memory():
    t = ops.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = np.from_dlpack(t)  # numpy marks it read-only and will not re-export it: go through a writable view
    u = ops.from_dlpack(np.ndarray(a.shape, a.dtype, buffer=memoryview(t._t), strides=a.strides))
    assert u._t.data_ptr == t._t.data_ptr == a.__array_interface__["data"][0]
    u.fill_(1)
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 3), np.float32))


def test_numpy_asarray_is_a_view():
    t = ops.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))
    a = np.asarray(t[:, 1:3])
    np.testing.assert_array_equal(a, [[1, 2], [5, 6]])
    t.fill_(0)
    assert (np.asarray(t) == 0).all() and (a == 0).all()
    b = np.asarray(ops.from_numpy(np.ones(3, np.float32)).to(ops.bfloat16))  # no numpy bfloat16: a copy
    assert b.dtype == np.float32 and (b == 1).all()


def test_buffer_protocol_of_the_handle():
    t = ops.from_numpy(np.arange(12, dtype=np.int32).reshape(3, 4)).transpose(0, 1)
    m = memoryview(t._t)
    assert m.format == "i" and m.shape == (4, 3) and m.strides == (4, 16)
    assert m.tolist() == np.arange(12).reshape(3, 4).T.tolist()
    h = memoryview(ops.from_numpy(np.zeros(2, np.float16))._t)
    assert h.format == "e" and h.itemsize == 2
    # bfloat16 has no buffer format: its bit patterns, "H" (1.5 = 0x3FC0)
    bf = memoryview(ops.full((2,), 1.5, dtype=ops.bfloat16)._t)
    assert bf.format == "H" and bf.tolist() == [0x3FC0, 0x3FC0]


def test_errors():
    with pytest.raises(TypeError, match="unsupported dtype"):
        ops.from_dlpack(np.zeros(3, np.uint16))
    with pytest.raises(TypeError, match="not an opsnn tensor dtype|unsupported"):
        ops.from_dlpack(np.zeros(3, np.float64))
    cap = ops.from_numpy(np.zeros(2, np.float32))._t.__dlpack__()
    ops.from_dlpack(cap)
    with pytest.raises(TypeError, match="unused"):
        ops.from_dlpack(cap)  # a capsule is consumed once
    with pytest.raises(TypeError, match="__dlpack__"):
        ops.from_dlpack([1, 2, 3])
    w = ops.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="require gradient"):
        w.__dlpack__()
    assert ops.zeros(1).__dlpack_device__() == (1, 0)


def test_an_unconsumed_capsule_frees_its_tensor():
    before = ops.memory_allocated()
    t = ops.zeros(1 << 16)
    cap = t.__dlpack__()
    del t
    gc.collect()
    assert ops.memory_allocated() > before  # the capsule holds the storage
    del cap
    gc.collect()
    assert ops.memory_allocated() == before


def test_torch_both_ways_with_bfloat16_and_views():
    torch = pytest.importorskip("torch", reason="the torch interop case needs python3-torch")
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)[:, 1::2].t()
    t = ops.from_dlpack(x)
    assert t.shape == tuple(x.shape) and t.strides == tuple(x.stride())
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    t.fill_(2)
    ops.synchronize()
    assert (x == 2).all()
    b = ops.from_numpy(np.array([[1.5, -2.25], [3.0, 0.5]], np.float32)).to(ops.bfloat16)
    y = torch.from_dlpack(b)
    assert y.dtype == torch.bfloat16
    assert y.float().tolist() == [[1.5, -2.25], [3.0, 0.5]]
    z = ops.from_dlpack(torch.tensor([1.0, 2.0], dtype=torch.bfloat16))
    assert z.dtype is ops.bfloat16 and z.to(ops.float32).numpy().tolist() == [1.0, 2.0]
