// opsnn._C's exchange with other array libraries, zero-copy (on a CPU device the tensors' memory is
// host memory): DLPack both ways (Tensor.__dlpack__ / __dlpack_device__, from_dlpack) and the
// buffer protocol of opsnn._C.Tensor (memoryview, numpy.asarray). Exporting synchronises the
// layer's stream first, so the consumer sees every queued write; an imported tensor keeps the
// producer's memory alive and hands it back (its DLPack deleter) when its last view is gone.
#pragma once

#include <pybind11/pybind11.h>

#include "opsnn/tensor.h"

namespace py = pybind11;

// A "dltensor" capsule viewing `t` (its storage stays alive until the consumer's deleter runs).
py::capsule tensor_to_dlpack(const opsnn::Tensor &t);
// A tensor over the memory of a DLPack producer: an object with __dlpack__ (torch.Tensor, numpy
// arrays) or a "dltensor" capsule. CPU memory only; dtypes of opsnn.
opsnn::Tensor tensor_from_dlpack(const py::object &obj);
// The buffer-protocol description of `t` (bfloat16, which has no format, as its 16-bit patterns "H").
py::buffer_info tensor_buffer(const opsnn::Tensor &t);
