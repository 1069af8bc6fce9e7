// Phase-1 checks shared by every op. Each throws opsnn::Error (161001 / 161002) with a message
// naming the argument; api_call() prefixes the API name.
#pragma once

#include <initializer_list>
#include <string>

#include "core/dtype.h"
#include "core/tensor.h"

namespace opsnn::core {

// A tensor argument and its prototype name (for messages); the family phase 1s' call structs hold
// their arguments by role as these ("" name: the prototype has no such argument).
struct NamedTensor {
  const aclTensor *t = nullptr;
  const char *name = "";
};

struct Shape {
  int ndim = 0;
  int64_t dims[kMaxDims] = {};
  std::string str() const { return shape_string(dims, ndim); }
  bool operator==(const Shape &o) const;
  static Shape of(const aclTensor &t);
};

// Gives `t` the dims of `shape` with row-major (contiguous) element strides; offset unchanged.
void set_contiguous(aclTensor &t, const Shape &shape);

void check_not_null(const void *p, const char *name);
// Non-null tensor with a dtype OpsNN supports and a plain (non-blocked) format.
void check_tensor(const aclTensor *t, const char *name);
// Non-null, plain format, and its dtype one of `allowed` (which may name dtypes check_tensor refuses,
// e.g. the UINT64 / INT64 words of aclnnTransQuantParam).
void check_dtype_in(const aclTensor *t, const char *name, std::initializer_list<aclDataType> allowed);
// The same with the allowed dtypes as a mask (the op tables' form).
void check_dtype_in(const aclTensor *t, const char *name, DtypeMask allowed);
// The dtypes of a mask, comma-separated (for messages).
std::string dtype_list(DtypeMask m);
void check_scalar(const aclScalar *s, const char *name);
// A required scalar's value as double (check_scalar first).
double scalar_value(const aclScalar *s, const char *name);
// The output may be written: no two of its elements share memory.
void check_no_internal_overlap(const aclTensor &t, const char *name);
void check_shape_equals(const aclTensor &t, const char *name, const Shape &expected);
// A dim argument `dim` of a tensor with `ndim` dims, in [-ndim, ndim) (a 0-d tensor takes 0 and
// -1), as a non-negative index; 161002 naming `what` (the argument, or the tensor) otherwise.
int wrap_dim(int64_t dim, int ndim, const char *what);

// How the memory of two views relates (PyTorch's rule for inputs against outputs): kFull = the
// same view; kPartial = both dense and their byte ranges intersect otherwise (an op would read
// elements it already wrote); kTooHard = sparse strided views whose ranges interleave (allowed, as
// in PyTorch). Views with unknown (null) addresses or no elements do not overlap.
enum class Overlap { kNone, kFull, kPartial, kTooHard };
Overlap memory_overlap(const aclTensor &a, const aclTensor &b);

// Broadcast of two shapes (NumPy rules) or an error naming both arguments.
Shape broadcast_shapes(const Shape &a, const char *a_name, const Shape &b, const char *b_name);
// Element strides of `t` viewed as `shape` (right-aligned; 0 in broadcast dims).
void broadcast_strides(const aclTensor &t, const Shape &shape, int64_t *strides);

bool is_plain_format(aclFormat f);

}  // namespace opsnn::core
