# opsnn.Tensor: dtypes, host copies, views without copies, indexing, casts, printing, errors.
import numpy as np
import pytest

import opsnn
from conftest import round_to

EXACT = [("float32", np.float32), ("float16", np.float16), ("int8", np.int8), ("int32", np.int32),
         ("int64", np.int64), ("bool", np.bool_)]


def _rand(rng, shape, npd):
    if npd == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(npd, np.integer):
        info = np.iinfo(npd)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(npd)
    return (rng.standard_normal(shape) * 3).astype(npd)


@pytest.mark.parametrize("name,npd", EXACT)
def test_numpy_roundtrip_is_exact(rng, name, npd):
    for shape in [(), (0,), (5,), (3, 4), (2, 3, 4, 5)]:
        a = _rand(rng, shape, npd)
        t = opsnn.from_numpy(a)
        assert t.dtype.name == name and t.shape == shape and t.dtype is opsnn.as_dtype(name)
        b = t.numpy()
        assert b.dtype == a.dtype and np.array_equal(a, b)


def test_bfloat16_rounds_to_nearest_even(rng):
    a = (rng.standard_normal((7, 9)) * 10).astype(np.float32)
    t = opsnn.from_numpy(a, dtype=opsnn.bfloat16)
    assert t.dtype is opsnn.bfloat16
    assert np.array_equal(t.numpy().astype(np.float64), round_to(a, "bfloat16"))


def test_tensor_from_lists_uses_pytorch_defaults():
    assert opsnn.tensor([1.5, 2]).dtype is opsnn.float32
    assert opsnn.tensor([[1, 2], [3, 4]]).dtype is opsnn.int64
    assert opsnn.tensor([True, False]).dtype is opsnn.bool
    assert opsnn.tensor(3.0).shape == ()
    assert opsnn.tensor([1, 2], dtype=opsnn.float16).dtype is opsnn.float16
    assert opsnn.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert opsnn.tensor([2.5]).item() == 2.5
    with pytest.raises((TypeError, ValueError)):
        opsnn.tensor([[1, 2], [3]])


def test_creation_functions():
    assert np.array_equal(opsnn.zeros(2, 3).numpy(), np.zeros((2, 3), np.float32))
    assert np.array_equal(opsnn.ones((2, 3), dtype=opsnn.int32).numpy(), np.ones((2, 3), np.int32))
    assert np.array_equal(opsnn.full((4,), -2.5).numpy(), np.full(4, -2.5, np.float32))
    assert opsnn.full((2,), 7).dtype is opsnn.int64


def test_views_share_storage_and_match_numpy(rng):
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    t = opsnn.from_numpy(a)
    cases = [
        (lambda x: x.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1)),
        (lambda x: x.transpose(0, 2), lambda x: np.swapaxes(x, 0, 2)),
        (lambda x: x.reshape(20, 6), lambda x: x.reshape(20, 6)),
        (lambda x: x.view(-1), lambda x: x.reshape(-1)),
        (lambda x: x[1:3, ::2, -1], lambda x: x[1:3, ::2, -1]),
        (lambda x: x[..., None, 2:5], lambda x: x[..., None, 2:5]),
        (lambda x: x[-1], lambda x: x[-1]),
        (lambda x: x.unsqueeze(1).squeeze(1), lambda x: x),
        (lambda x: x[:, :1, :].expand(4, 3, 6), lambda x: np.broadcast_to(x[:, :1, :], (4, 3, 6))),
        (lambda x: x[:1].expand(2, -1, -1, -1), lambda x: np.broadcast_to(x[:1], (2, 1, 5, 6))),
        (lambda x: x.T, lambda x: x.transpose(2, 1, 0)),
        (lambda x: x[::3, 1:4:2][:, :, 1:], lambda x: x[::3, 1:4:2][:, :, 1:]),
    ]
    for i, (f, g) in enumerate(cases):
        v, want = f(t), g(a)
        assert v._t.shares_storage(t._t), f"case {i} copied"
        assert v.shape == want.shape, f"case {i}"
        if want.size and 0 not in want.strides:
            assert tuple(s * 4 for s in v.strides) == want.strides or not want.flags.c_contiguous, f"case {i}"
        assert np.array_equal(v.numpy(), want), f"case {i}"


def test_strides_like_pytorch():
    t = opsnn.zeros(2, 3, 4)
    assert t.strides == (12, 4, 1) and t.is_contiguous()
    p = t.permute(2, 0, 1)
    assert p.strides == (1, 12, 4) and not p.is_contiguous()
    assert t[:, 1].storage_offset() == 4 and t[:, 1].strides == (12, 1)
    e = opsnn.zeros(3, 1).expand(3, 5)
    assert e.strides == (1, 0)


def test_reshape_copies_only_when_it_must(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    t = opsnn.from_numpy(a).T  # non-contiguous
    with pytest.raises(ValueError):
        t.view(12)
    r = t.reshape(12)
    assert not r._t.shares_storage(t._t)
    assert np.array_equal(r.numpy(), a.T.reshape(12))
    c = t.contiguous()
    assert c.is_contiguous() and c.strides == (3, 1) and np.array_equal(c.numpy(), a.T)


def test_setitem_writes_through_views(rng):
    t = opsnn.zeros(4, 5)
    t[1:3, ::2] = 7.0
    t[0] = opsnn.tensor([1.0, 2, 3, 4, 5])
    col = t[:, 4]
    col[3] = -1  # a view of a view writes into the base
    want = np.zeros((4, 5), np.float32)
    want[1:3, ::2] = 7
    want[0] = [1, 2, 3, 4, 5]
    want[3, 4] = -1
    assert np.array_equal(t.numpy(), want)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "float16"), ("float32", "bfloat16"),
                                     ("int64", "float32"), ("int32", "bool"), ("bool", "float32"),
                                     ("float16", "int8")])
def test_to_dtype_casts_like_pytorch(rng, src, dst):
    npd = dict(EXACT)[src]
    a = _rand(rng, (6, 7), npd)
    if np.issubdtype(npd, np.floating):
        a = np.clip(a, -100, 100).astype(npd)
    t = opsnn.from_numpy(a)[:, 1:]  # non-contiguous source
    b = t.to(getattr(opsnn, dst if dst != "bool" else "bool_")).numpy()
    src_vals = a[:, 1:]
    if dst == "bool":
        want = src_vals != 0
    elif dst in ("int32", "int8"):
        want = np.trunc(src_vals.astype(np.float64)).astype(dict(EXACT)[dst])
    elif dst == "bfloat16":
        want = round_to(src_vals, "bfloat16")
    else:
        want = src_vals.astype(dict(EXACT)[dst])
    assert np.array_equal(np.asarray(b, dtype=np.float64), np.asarray(want, dtype=np.float64))


def test_printing_like_pytorch():
    assert repr(opsnn.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(opsnn.tensor([1.5, -2.25])) == "tensor([ 1.5000, -2.2500])"
    assert repr(opsnn.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(opsnn.tensor([1, 2], dtype=opsnn.int32)) == "tensor([1, 2], dtype=opsnn.int32)"
    assert repr(opsnn.tensor([1.0], dtype=opsnn.float16)) == "tensor([1.], dtype=opsnn.float16)"
    assert repr(opsnn.tensor([True, False])) == "tensor([ True, False])"
    x = opsnn.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert "grad_fn=<MulsBackward>" in repr(x * 2)
    assert repr(opsnn.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(opsnn.tensor([[1.0, -2.0], [30.0, 4.0]])) == "tensor([[ 1., -2.],\n        [30.,  4.]])"
    assert repr(opsnn.tensor([float("nan"), 1.0])) == "tensor([nan, 1.])"


def test_index_errors():
    t = opsnn.zeros(3, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        t[3]
    with pytest.raises(IndexError, match="out of range"):
        t.transpose(0, 2)
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(ValueError):
        t[::-1]
    with pytest.raises(ValueError):
        t.expand(3, 5)
    with pytest.raises(ValueError):
        t.reshape(5, -1)
    with pytest.raises(TypeError):
        t[[0, 1]]


def test_unsupported_dtypes_raise():
    with pytest.raises(TypeError):
        opsnn.from_numpy(np.zeros(3, dtype=np.complex64))
    with pytest.raises(TypeError):
        opsnn.zeros(2, dtype="float64")
    with pytest.raises(RuntimeError):
        opsnn.tensor([1, 2]).requires_grad_()


def test_aclnn_errors_carry_the_message():
    a, b = opsnn.zeros(3, 4), opsnn.zeros(5)
    with pytest.raises(opsnn.Error) as e:
        a + b
    assert e.value.code == 161002
    assert "aclnnAdd" in str(e.value) and "broadcast" in str(e.value)
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(opsnn.Error) as e:
        opsnn.functional.call("Add", a, None, 1.0, a)
    assert e.value.code == 161001 and "other" in str(e.value)
