// The framework's tensor: views over reference-counted aclrtMalloc storage (include/opsnn/tensor.h).
// Copies, casts and fills are aclnn calls through OpCall; nothing here touches the library's
// internals (the framework layer sees only the public acl / aclnn API).
#include "opsnn/tensor.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_zero.h"
#include "capture.h"
#include "opsnn/call.h"

namespace opsnn {

bool is_supported_dtype(aclDataType d) {
  switch (d) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_INT8: case ACL_INT32: case ACL_INT64: case ACL_BOOL:
    case ACL_DOUBLE:  // host-made parameters only (the optimisers' hyper-parameters); not a Python dtype
      return true;
    default:
      return false;
  }
}

bool is_floating_dtype(aclDataType d) {
  return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_DOUBLE;
}

size_t dtype_size(aclDataType d) {
  switch (d) {
    case ACL_FLOAT: case ACL_INT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: return 2;
    case ACL_INT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_DOUBLE: return 8;
    default: throw std::invalid_argument("opsnn: unsupported dtype " + std::to_string(static_cast<int>(d)));
  }
}

const char *dtype_name(aclDataType d) {
  switch (d) {
    case ACL_FLOAT: return "float32";
    case ACL_FLOAT16: return "float16";
    case ACL_BF16: return "bfloat16";
    case ACL_INT8: return "int8";
    case ACL_INT32: return "int32";
    case ACL_INT64: return "int64";
    case ACL_BOOL: return "bool";
    case ACL_DOUBLE: return "float64";
    default: return "unsupported";
  }
}

namespace {
std::atomic<uint64_t> g_allocated{0}, g_peak{0}, g_allocations{0}, g_frees{0};
}  // namespace

namespace detail {
void count_storage_alloc(size_t bytes) {
  const uint64_t now = g_allocated.fetch_add(bytes) + bytes;
  uint64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  g_allocations.fetch_add(1);
}
void count_storage_free(size_t bytes) {
  g_allocated.fetch_sub(bytes);
  g_frees.fetch_add(1);
}
}  // namespace detail

Storage::Storage(size_t bytes) : bytes_(bytes) {
  stream();  // acl initialised and the device set before the first allocation
  ptr_ = detail::capture_place(bytes, &arena_, &capture_block_, &capture_pass_);
  if (ptr_) return;  // the graph's arena (counted once, as a whole)
  const aclError rc = aclrtMalloc(&ptr_, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST);
  if (rc != ACL_SUCCESS) {
    const char *m = aclGetRecentErrMsg();
    throw Error(rc, std::string("aclrtMalloc(") + std::to_string(bytes) + " bytes) failed: " + (m ? m : ""));
  }
  detail::count_storage_alloc(bytes);
  detail::capture_record(bytes, &capture_block_, &capture_pass_);
}

Storage::Storage(void *external, size_t bytes, std::function<void()> release)
    : ptr_(external), bytes_(bytes), release_(std::move(release)) {
  if (!release_) release_ = [] {};
}

// What giving the memory back takes (run now, or by a graph whose replays may still read it).
std::function<void()> Storage::release_function() {
  if (release_) {
    // Work queued on the layer's stream may still read or write the memory: the owner gets it
    // back only once that work is done.
    return [release = std::move(release_)] {
      aclrtSynchronizeStream(stream());
      release();
    };
  }
  if (arena_) return [arena = std::move(arena_)] {};  // the arena goes with its last user
  void *p = ptr_;
  const size_t n = bytes_;
  return [p, n] {
    if (p) aclrtFree(p);  // stream-ordered: the runtime defers it past queued work
    detail::count_storage_free(n);
  };
}

Storage::~Storage() {
  std::function<void()> release = release_function();
  if (!detail::capture_release(capture_block_, capture_pass_, release)) release();
}

MemoryStats memory_stats() {
  MemoryStats s;
  s.allocated_bytes = g_allocated.load();
  s.peak_allocated_bytes = g_peak.load();
  s.allocations = g_allocations.load();
  s.frees = g_frees.load();
  stream();  // the device is set
  size_t free_b = 0, total_b = 0;
  if (aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b) == ACL_SUCCESS) {
    s.device_total = total_b;
    s.device_in_use = total_b - free_b;
  }
  return s;
}

void reset_peak_memory_stats() { g_peak.store(g_allocated.load()); }

Shape contiguous_strides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  return s;
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char *what) {
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) {
    std::ostringstream os;
    os << what << " " << dim << " is out of range [" << lo << ", " << hi << "] for a tensor of " << rank << " dims";
    throw std::out_of_range(os.str());
  }
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

static int64_t shape_numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("opsnn: negative size in shape");
    n *= d;
  }
  return n;
}

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset, aclDataType dtype)
    : storage_(std::move(storage)), shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset), dtype_(dtype) {
  if (shape_.size() != strides_.size()) throw std::invalid_argument("opsnn: shape and strides differ in length");
}

Tensor Tensor::empty(const Shape &shape, aclDataType dtype) {
  if (!is_supported_dtype(dtype)) throw std::invalid_argument(std::string("opsnn: unsupported dtype ") + std::to_string(static_cast<int>(dtype)));
  const int64_t n = shape_numel(shape);
  auto st = std::make_shared<Storage>(static_cast<size_t>(n) * dtype_size(dtype));
  return Tensor(std::move(st), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::zeros(const Shape &shape, aclDataType dtype) {
  Tensor t = empty(shape, dtype);
  if (t.numel() > 0) t.zero_();
  return t;
}

Tensor Tensor::full(const Shape &shape, double value, aclDataType dtype) {
  Tensor t = empty(shape, dtype);
  if (t.numel() > 0) t.fill_(value);
  return t;
}

Tensor Tensor::from_host(const void *data, const Shape &shape, aclDataType dtype) {
  if (detail::capture_active())
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: host data copied to the device during a capture would be frozen "
                "into the graph (replays would not see new values); make the tensor before the capture and refill it");
  Tensor t = empty(shape, dtype);
  const size_t bytes = static_cast<size_t>(t.numel()) * t.element_size();
  if (bytes > 0) {
    synchronize();  // the block may come back from the cache with stream work still reading it
    const aclError rc = aclrtMemcpy(t.storage_->data(), t.storage_->bytes(), data, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtMemcpy (host to device) failed: ") + aclGetRecentErrMsg());
  }
  return t;
}

int64_t Tensor::size(int64_t d) const { return shape_[wrap_dim(d, dim())]; }
int64_t Tensor::numel() const { return shape_numel(shape_); }
int64_t Tensor::storage_numel() const {
  return storage_ ? static_cast<int64_t>(storage_->bytes() / element_size()) : 0;
}

bool Tensor::is_contiguous() const {
  int64_t expect = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expect) return false;
    expect *= shape_[i];
  }
  return true;
}

static Shape infer_shape(const Shape &want, int64_t numel) {
  Shape s = want;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer >= 0) throw std::invalid_argument("opsnn: only one dimension can be inferred (-1)");
      infer = static_cast<int64_t>(i);
    } else if (s[i] < 0) {
      throw std::invalid_argument("opsnn: invalid shape dimension " + std::to_string(s[i]));
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      throw std::invalid_argument("opsnn: shape is invalid for input of size " + std::to_string(numel));
    s[infer] = numel / known;
  } else if (known != numel) {
    throw std::invalid_argument("opsnn: shape is invalid for input of size " + std::to_string(numel));
  }
  return s;
}

// PyTorch's computeStride: the strides of a view with the new shape, or none when the old
// strides cannot express it.
static bool view_strides(const Shape &old_shape, const Shape &old_strides, const Shape &new_shape, Shape &out) {
  out.assign(new_shape.size(), 1);
  if (old_shape.empty()) return true;  // a scalar: any shape of one element
  const int64_t numel = shape_numel(old_shape);
  if (numel == 0) {
    out = contiguous_strides(new_shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    if (tensor_d == 0 || (old_shape[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor Tensor::view(const Shape &shape) const {
  const Shape s = infer_shape(shape, numel());
  Shape st;
  if (!view_strides(shape_, strides_, s, st))
    throw std::invalid_argument("opsnn: view size is not compatible with the input's strides (use reshape)");
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::reshape(const Shape &shape) const {
  const Shape s = infer_shape(shape, numel());
  Shape st;
  if (view_strides(shape_, strides_, s, st)) return Tensor(storage_, s, st, offset_, dtype_);
  return contiguous().view(s);
}

Tensor Tensor::permute(const std::vector<int64_t> &dims) const {
  if (static_cast<int64_t>(dims.size()) != dim())
    throw std::invalid_argument("opsnn: permute needs " + std::to_string(dim()) + " dims, got " + std::to_string(dims.size()));
  Shape s(dims.size()), st(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim());
    if (seen[d]) throw std::invalid_argument("opsnn: permute: repeated dim " + std::to_string(dims[i]));
    seen[d] = true;
    s[i] = shape_[d];
    st[i] = strides_[d];
  }
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (dim() == 0) return *this;
  std::vector<int64_t> p(dim());
  for (int64_t i = 0; i < dim(); ++i) p[i] = i;
  std::swap(p[wrap_dim(d0, dim())], p[wrap_dim(d1, dim())]);
  return permute(p);
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t stop, int64_t step) const {
  d = wrap_dim(d, dim());
  if (step <= 0) throw std::invalid_argument("opsnn: slice step must be positive");
  const int64_t n = shape_[d];
  auto clampi = [n](int64_t v) { if (v < 0) v += n; return std::min(std::max<int64_t>(v, 0), n); };
  start = clampi(start);
  stop = clampi(stop);
  const int64_t len = stop > start ? (stop - start + step - 1) / step : 0;
  Shape s = shape_, st = strides_;
  s[d] = len;
  st[d] = strides_[d] * step;
  return Tensor(storage_, s, st, offset_ + (len > 0 ? start * strides_[d] : 0), dtype_);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (dim() == 0) throw std::out_of_range("opsnn: select on a 0-dim tensor");
  d = wrap_dim(d, dim());
  const int64_t n = shape_[d];
  if (index < -n || index >= n)
    throw std::out_of_range("opsnn: index " + std::to_string(index) + " is out of bounds for dim " + std::to_string(d) +
                            " with size " + std::to_string(n));
  if (index < 0) index += n;
  Shape s = shape_, st = strides_;
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return Tensor(storage_, s, st, offset_ + index * strides_[d], dtype_);
}

Tensor Tensor::expand(const Shape &shape) const {
  if (shape.size() < shape_.size())
    throw std::invalid_argument("opsnn: expand: the new shape has fewer dims than the tensor");
  const size_t lead = shape.size() - shape_.size();
  Shape s(shape.size()), st(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      if (shape[i] < 0) throw std::invalid_argument("opsnn: expand: -1 is not allowed in a new leading dim");
      s[i] = shape[i];
      st[i] = 0;
      continue;
    }
    const int64_t have = shape_[i - lead];
    const int64_t want = shape[i] == -1 ? have : shape[i];
    if (have == want) {
      s[i] = have;
      st[i] = strides_[i - lead];
    } else if (have == 1 && want >= 0) {
      s[i] = want;
      st[i] = 0;
    } else {
      throw std::invalid_argument("opsnn: expand: size " + std::to_string(have) + " at dim " + std::to_string(i - lead) +
                                  " cannot become " + std::to_string(want));
    }
  }
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1);
  Shape s = shape_, st = strides_;
  const int64_t stride = d < dim() ? shape_[d] * strides_[d] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, stride);
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return *this;
  d = wrap_dim(d, dim());
  if (shape_[d] != 1) return *this;
  Shape s = shape_, st = strides_;
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape_, dtype_);
  if (numel() > 0) out.copy_(*this);
  return out;
}

Tensor Tensor::to(aclDataType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor out = empty(shape_, dtype);
  if (numel() == 0) return out;
  OpCall c("aclnnCast", "io");
  aclTensor *a = c.tensor(*this), *o = c.tensor(out);
  c.key(static_cast<int64_t>(dtype));
  c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnCastGetWorkspaceSize(a, dtype, o, ws, ex); }, aclnnCast);
  return out;
}

Tensor &Tensor::copy_(const Tensor &src) {
  OpCall c("aclnnInplaceCopy", "bi");
  aclTensor *a = c.tensor(*this), *b = c.tensor(src);
  c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnInplaceCopyGetWorkspaceSize(a, b, ws, ex); },
        aclnnInplaceCopy);
  return *this;
}

Tensor &Tensor::fill_(double value) {
  OpCall c("aclnnInplaceFillScalar", "b");
  aclTensor *a = c.tensor(*this);
  aclScalar *v = c.scalar_as(value, is_floating_dtype(dtype_) ? ACL_DOUBLE : dtype_ == ACL_BOOL ? ACL_BOOL : ACL_INT64);
  c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnInplaceFillScalarGetWorkspaceSize(a, v, ws, ex); },
        aclnnInplaceFillScalar);
  return *this;
}

Tensor &Tensor::zero_() {
  OpCall c("aclnnInplaceZero", "b");
  aclTensor *a = c.tensor(*this);
  c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnInplaceZeroGetWorkspaceSize(a, ws, ex); }, aclnnInplaceZero);
  return *this;
}

void Tensor::to_host(void *dst) const {
  if (!defined()) throw std::invalid_argument("opsnn: to_host of an undefined tensor");
  const Tensor c = contiguous();
  const size_t bytes = static_cast<size_t>(numel()) * element_size();
  synchronize();
  if (bytes == 0) return;
  const char *src = static_cast<const char *>(c.storage_->data()) + c.offset_ * static_cast<int64_t>(element_size());
  const aclError rc = aclrtMemcpy(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtMemcpy (device to host) failed: ") + aclGetRecentErrMsg());
}

std::string Tensor::describe() const {
  std::ostringstream os;
  auto list = [&os](const Shape &v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  os << "Tensor(shape=";
  list(shape_);
  os << ", dtype=" << dtype_name(dtype_) << ", strides=";
  list(strides_);
  os << ", offset=" << offset_ << ")";
  return os.str();
}

}  // namespace opsnn
