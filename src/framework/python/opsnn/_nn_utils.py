"""opsnn.nn.utils.rnn: PyTorch's PackedSequence (data [N, *], batch_sizes int64 [T], sorted_indices,
unsorted_indices) and pack_padded_sequence / pad_packed_sequence / pack_sequence /
pad_sequence, composed from differentiable views and copies (functional.getitem and a concatenation),
so gradients reach the padded input. nn.LSTM / GRU take a PackedSequence (aclnnLSTM / aclnnGRU's
batchSizes)."""
import collections
import types

import numpy as np

from . import functional as F
from ._tensor import Tensor, from_numpy, full


class PackedSequence(collections.namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices",
                                                               "unsorted_indices"])):
    """The packed steps: data holds step t's batch_sizes[t] rows (longest sequences first) one step
    after the other; sorted_indices maps the packed batch order to the caller's (None: already sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = from_numpy(np.argsort(sorted_indices.numpy()).astype(np.int64))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)


def _index_batch(x, idx, dim):
    """x's slices idx[0], idx[1], ... along dim, stacked in that order (differentiable)."""
    xt = F.transpose(x, 0, dim) if dim else x
    parts = [F.getitem(xt, slice(int(i), int(i) + 1)) for i in idx]
    out = F._cat0(parts)
    return F.transpose(out, 0, dim) if dim else out


def _lengths(lengths):
    if isinstance(lengths, Tensor) or hasattr(lengths, "numpy"):
        lengths = lengths.numpy() if isinstance(lengths, Tensor) else lengths.detach().cpu().numpy()
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """input [T, B, *] ([B, T, *] batch first) and each sequence's length -> PackedSequence."""
    lens = _lengths(lengths)
    x = F.transpose(input, 0, 1) if batch_first else input  # time-major
    if lens.shape[0] != x.shape[1]:
        raise ValueError(f"lengths has {lens.shape[0]} entries, the batch is {x.shape[1]}")
    if np.any(lens <= 0) or lens.max() > x.shape[0]:
        raise RuntimeError("pack_padded_sequence: lengths must be in [1, sequence length]")
    srt = None
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = np.argsort(-lens, kind="stable")
        srt = from_numpy(order.astype(np.int64))
        lens = lens[order]
        x = _index_batch(x, order, 1)
    T = int(lens.max())
    bs = np.array([int(np.sum(lens > t)) for t in range(T)], dtype=np.int64)
    data = F._cat0([F.getitem(x, (t, slice(0, int(bs[t])))) for t in range(T)])
    return PackedSequence(data, from_numpy(bs), srt)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """PackedSequence -> (padded [T, B, *] or batch first, lengths int64 [B]) in the caller's order."""
    data, bs_t, srt, unsrt = sequence
    bs = bs_t.numpy().astype(np.int64)
    T, B = bs.shape[0], int(bs[0])
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"total_length {total_length} is less than the longest sequence {T}")
        T_out = int(total_length)
    else:
        T_out = T
    feat = list(data.shape[1:])
    out = full([T_out, B] + feat, padding_value, dtype=data.dtype)
    offs = np.concatenate([[0], np.cumsum(bs)])
    for t in range(T):
        out._t.slice(0, t, t + 1, 1).slice(1, 0, int(bs[t]), 1).copy_(
            data._t.slice(0, int(offs[t]), int(offs[t + 1]), 1).unsqueeze(0))

    def back(g):
        return F._cat0([F.getitem(g, (t, slice(0, int(bs[t])))) for t in range(T)])
    out = F.record(out, [data], "PadPackedBackward", back)
    lens = np.array([int(np.sum(bs > b)) for b in range(B)], dtype=np.int64)
    if unsrt is not None:
        idx = unsrt.numpy()
        out = _index_batch(out, idx, 1)
        lens = lens[idx]
    if batch_first:
        out = F.transpose(out, 0, 1)
    return out, from_numpy(lens)


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """A list of [L_i, *] tensors -> [max L, B, *] (or batch first) padded with padding_value."""
    T = max(s.shape[0] for s in sequences)
    parts = []
    for s in sequences:
        if s.shape[0] < T:
            pad = full([T - s.shape[0]] + list(s.shape[1:]), padding_value, dtype=s.dtype)
            s = F._cat0([s, pad])
        parts.append(F.unsqueeze(s, 0))
    out = F._cat0(parts)  # [B, T, *]
    return out if batch_first else F.transpose(out, 0, 1)


def pack_sequence(sequences, enforce_sorted=True):
    """A list of [L_i, *] tensors -> PackedSequence."""
    lens = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lens, enforce_sorted=enforce_sorted)


rnn = types.SimpleNamespace(PackedSequence=PackedSequence, pack_padded_sequence=pack_padded_sequence,
                            pad_packed_sequence=pad_packed_sequence, pad_sequence=pad_sequence,
                            pack_sequence=pack_sequence, _index_batch=_index_batch)
__all__ = ["rnn"]
