/* OpsNN framework layer: the C++ tensor (docs/ARCHITECTURE.md, "Framework layer").
 *
 * opsnn::Tensor is a view (shape, strides, offset in elements, dtype) of a reference-counted
 * storage allocated with aclrtMalloc (the runtime's caching allocator; the block returns to the
 * cache when the last view is gone, stream-ordered). Views never copy; every computation is an
 * aclnn call made through opsnn::OpCall (opsnn/call.h) on the layer's stream, and reading to the
 * host synchronises that stream. C++17. */
#ifndef OPSNN_FRAMEWORK_TENSOR_H_
#define OPSNN_FRAMEWORK_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace opsnn {

/* An aclnn / acl call failed: the status code and the library's message (aclGetRecentErrMsg). */
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string &msg) : std::runtime_error(msg), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/* The dtypes the framework's tensors take. */
bool is_supported_dtype(aclDataType d);
bool is_floating_dtype(aclDataType d);
size_t dtype_size(aclDataType d);
const char *dtype_name(aclDataType d); /* "float32", "float16", "bfloat16", "int8", ... */

/* Device memory from aclrtMalloc, freed (into the runtime's cache) by the last owner; or memory
 * another library owns (DLPack import: on a CPU device, device memory is host memory), handed
 * back through `release` by the last owner and never counted in memory_stats(). During a graph
 * capture (opsnn/graph.h) the memory is a planned place in the graph's arena, which the storage
 * keeps alive. */
class Storage {
 public:
  explicit Storage(size_t bytes);
  Storage(void *external, size_t bytes, std::function<void()> release);
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  void *data() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  bool external() const { return static_cast<bool>(release_); }
  uint64_t capture_pass() const { return capture_pass_; }  // the graph-capture pass that made it (0: none)

 private:
  std::function<void()> release_function();

  void *ptr_ = nullptr;
  size_t bytes_ = 0;
  std::function<void()> release_;
  std::shared_ptr<void> arena_;  // a graph's arena this storage lies in
  int64_t capture_block_ = -1;   // the allocation's number in the capture pass that made it
  uint64_t capture_pass_ = 0;    // that pass (0: none)
};

/* Counters of the tensors' storage (PyTorch's memory_stats): bytes of live Storage now and at the
 * peak (since the last reset_peak_memory_stats), Storage allocations and frees so far; and the
 * device's memory from aclrtGetMemInfo (the runtime's caching allocator: in use = live blocks plus
 * blocks freed but awaiting queued work, each rounded to its size class; its cache counts as free).
 * Workspaces are not Storage: call_stats() counts them. */
struct MemoryStats {
  uint64_t allocated_bytes = 0, peak_allocated_bytes = 0, allocations = 0, frees = 0;
  uint64_t device_in_use = 0, device_total = 0;
};
MemoryStats memory_stats();
void reset_peak_memory_stats();

using Shape = std::vector<int64_t>;

class Tensor {
 public:
  Tensor() = default;  // undefined (defined() is false)
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset, aclDataType dtype);

  /* A new contiguous tensor (contents undefined), zeros, or filled with a value. */
  static Tensor empty(const Shape &shape, aclDataType dtype);
  static Tensor zeros(const Shape &shape, aclDataType dtype);
  static Tensor full(const Shape &shape, double value, aclDataType dtype);
  /* A contiguous copy of `count` host elements of dtype (count == numel(shape)). */
  static Tensor from_host(const void *data, const Shape &shape, aclDataType dtype);

  bool defined() const { return storage_ != nullptr; }
  const Shape &shape() const { return shape_; }
  const Shape &strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  aclDataType dtype() const { return dtype_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t d) const;
  int64_t numel() const;
  size_t element_size() const { return dtype_size(dtype_); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage> &storage() const { return storage_; }
  /* Elements of the storage (the descriptor's storage shape). */
  int64_t storage_numel() const;

  /* Views (no copy). Dims may be negative (counted from the end). */
  Tensor view(const Shape &shape) const;        // needs strides compatible with the new shape
  Tensor reshape(const Shape &shape) const;     // a view when possible, else a contiguous copy
  Tensor permute(const std::vector<int64_t> &dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor slice(int64_t dim, int64_t start, int64_t stop, int64_t step = 1) const;  // clamped like Python
  Tensor select(int64_t dim, int64_t index) const;
  Tensor expand(const Shape &shape) const;      // -1 keeps a size; new leading dims allowed
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze(int64_t dim) const;

  /* Copies (aclnn calls). */
  Tensor contiguous() const;                    // this tensor when already contiguous
  Tensor clone() const;
  Tensor to(aclDataType dtype) const;           // aclnnCast; this tensor when the dtype is the same
  Tensor &copy_(const Tensor &src);             // aclnnInplaceCopy (broadcast, cast)
  Tensor &fill_(double value);                  // aclnnInplaceFillScalar
  Tensor &zero_();                              // aclnnInplaceZero
  /* Copy the elements in row-major order to host memory (numel * element_size bytes); synchronises
   * (and so throws during a graph capture). */
  void to_host(void *dst) const;

  std::string describe() const;  // "Tensor(shape=[2, 3], dtype=float32, strides=[3, 1], offset=0)"

 private:
  std::shared_ptr<Storage> storage_;
  Shape shape_, strides_;
  int64_t offset_ = 0;
  aclDataType dtype_ = ACL_FLOAT;
};

/* Contiguous strides of a shape. */
Shape contiguous_strides(const Shape &shape);
/* Normalise a possibly negative dim against rank (std::out_of_range naming `what` otherwise). */
int64_t wrap_dim(int64_t dim, int64_t rank, const char *what = "dim");

}  // namespace opsnn

#endif /* OPSNN_FRAMEWORK_TENSOR_H_ */
