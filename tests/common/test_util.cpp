#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "common/half.h"

namespace opsnn::test {

std::mt19937_64 &rng() {
  static thread_local std::mt19937_64 g(12345);
  return g;
}

int test_thin() {
  static const int n = [] {
    const char *env = std::getenv("OPSNN_TEST_THIN");
    const int v = env != nullptr ? std::atoi(env) : 1;
    return v >= 1 ? v : 1;
  }();
  return n;
}

void reseed_for_current_test() {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "none";
  rng().seed(std::hash<std::string>{}(name));
}

size_t elem_size(aclDataType dt) { return aclDataTypeSize(dt); }

double read_elem(aclDataType dt, const void *p) {
  switch (dt) {
    case ACL_FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
    case ACL_DOUBLE: { double v; std::memcpy(&v, p, 8); return v; }
    case ACL_FLOAT16: { uint16_t v; std::memcpy(&v, p, 2); return half_to_float(v); }
    case ACL_BF16: { uint16_t v; std::memcpy(&v, p, 2); return bf16_to_float(v); }
    case ACL_INT8: return *static_cast<const int8_t *>(p);
    case ACL_UINT8: return *static_cast<const uint8_t *>(p);
    case ACL_INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ACL_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ACL_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ACL_BOOL: return *static_cast<const uint8_t *>(p) != 0;
    // Storage-only dtypes (Nonzero's UINT16 / 32 / 64): values beyond 2^53 are rounded.
    case ACL_UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ACL_UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ACL_UINT64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    default: ADD_FAILURE() << "read_elem: unsupported dtype " << dt; return 0;
  }
}

void write_elem(aclDataType dt, void *p, double v) {
  switch (dt) {
    case ACL_FLOAT: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case ACL_DOUBLE: std::memcpy(p, &v, 8); break;
    case ACL_FLOAT16: { uint16_t h = float_to_half(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case ACL_BF16: { uint16_t h = float_to_bf16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    // Integers wrap around like two's-complement arithmetic in that dtype.
    case ACL_INT8: *static_cast<int8_t *>(p) = static_cast<int8_t>(static_cast<uint8_t>(static_cast<int64_t>(v))); break;
    case ACL_UINT8: *static_cast<uint8_t *>(p) = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case ACL_INT16: { int16_t i = static_cast<int16_t>(static_cast<uint16_t>(static_cast<int64_t>(v))); std::memcpy(p, &i, 2); break; }
    case ACL_INT32: { int32_t i = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(v))); std::memcpy(p, &i, 4); break; }
    case ACL_INT64: { int64_t i = static_cast<int64_t>(v); std::memcpy(p, &i, 8); break; }
    case ACL_BOOL: *static_cast<uint8_t *>(p) = v != 0; break;
    case ACL_UINT16: { uint16_t i = static_cast<uint16_t>(static_cast<int64_t>(v)); std::memcpy(p, &i, 2); break; }
    case ACL_UINT32: { uint32_t i = static_cast<uint32_t>(static_cast<int64_t>(v)); std::memcpy(p, &i, 4); break; }
    case ACL_UINT64: {  // 0 <= v <= 2^64 (2^64 itself wraps to 0)
      const uint64_t i = v >= 9223372036854775808.0 ? static_cast<uint64_t>(v - 9223372036854775808.0) + (uint64_t{1} << 63)
                                                    : static_cast<uint64_t>(static_cast<int64_t>(v));
      std::memcpy(p, &i, 8);
      break;
    }
    default: ADD_FAILURE() << "write_elem: unsupported dtype " << dt;
  }
}

double round_to(aclDataType dt, double v) {
  unsigned char buf[8];
  write_elem(dt, buf, v);
  return read_elem(dt, buf);
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

std::unique_ptr<DeviceTensor> transposed_view(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 3);
}

std::unique_ptr<DeviceTensor> padded_view(const std::vector<int64_t> &shape, aclDataType dt, int64_t offset) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= shape[i] + 1;
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, offset);
}

int64_t numel_of(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

int64_t broadcast_source(const std::vector<int64_t> &idx, const std::vector<int64_t> &to_shape,
                         const std::vector<int64_t> &from_shape) {
  int64_t lin = 0;
  const size_t off = to_shape.size() - from_shape.size();
  for (size_t d = 0; d < from_shape.size(); ++d) {
    int64_t k = from_shape[d] == 1 ? 0 : idx[d + off];
    lin = lin * from_shape[d] + k;
  }
  return lin;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, aclDataType dt)
    : DeviceTensor(shape, dt, contiguous_strides(shape), 0, 0) {}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, aclDataType dt, std::vector<int64_t> strides, int64_t offset,
                           int64_t storage_elems)
    : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset), dtype_(dt) {
  int64_t extent = offset_ + 1;
  bool empty = false;
  for (size_t d = 0; d < shape_.size(); ++d) {
    extent += (shape_[d] - 1) * strides_[d];
    empty |= shape_[d] == 0;
  }
  if (empty) extent = offset_;
  storage_elems_ = std::max<int64_t>(storage_elems, extent);
  const size_t bytes = static_cast<size_t>(storage_elems_) * elem_size(dt) + kGuardBytes;
  EXPECT_EQ(aclrtMalloc(&dev_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::memset(dev_, 0x5A, bytes);
  snapshot_.assign(static_cast<unsigned char *>(dev_), static_cast<unsigned char *>(dev_) + bytes);
  create_descriptor();
}

void DeviceTensor::create_descriptor() {
  int64_t storage = storage_elems_;
  tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.data(), offset_, ACL_FORMAT_ND, &storage,
                            1, dev_);
  EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(dev_);
}

int64_t DeviceTensor::numel() const { return numel_of(shape_); }

int64_t DeviceTensor::offset_of(int64_t linear) const {
  auto idx = unravel(linear, shape_);
  int64_t off = offset_;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides_[d];
  return off;
}

void DeviceTensor::fill_random(double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  auto *p = static_cast<unsigned char *>(dev_);
  const size_t es = elem_size(dtype_);
  for (int64_t i = 0; i < storage_elems_; ++i) {
    double v = dist(rng());
    if (dtype_ == ACL_BOOL) v = v > (lo + hi) / 2;
    else if (dtype_ != ACL_FLOAT && dtype_ != ACL_DOUBLE && dtype_ != ACL_FLOAT16 && dtype_ != ACL_BF16) v = std::round(v);
    write_elem(dtype_, p + i * es, v);
  }
  snapshot_.assign(p, p + storage_elems_ * es + kGuardBytes);
}

void DeviceTensor::poison() {
  auto *p = static_cast<unsigned char *>(dev_);
  const size_t bytes = static_cast<size_t>(storage_elems_) * elem_size(dtype_);
  std::memset(p, 0xFF, bytes);  // NaN for every floating dtype, -1 / true for integers
  snapshot_.assign(p, p + bytes + kGuardBytes);
}

void DeviceTensor::set_values(const std::vector<double> &v) {
  auto *p = static_cast<unsigned char *>(dev_);
  const size_t es = elem_size(dtype_);
  for (int64_t i = 0; i < numel(); ++i) write_elem(dtype_, p + offset_of(i) * es, v[static_cast<size_t>(i)]);
  snapshot_.assign(p, p + storage_elems_ * es + kGuardBytes);
}

std::vector<double> DeviceTensor::values() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  const auto *p = static_cast<const unsigned char *>(dev_);
  const size_t es = elem_size(dtype_);
  for (int64_t i = 0; i < numel(); ++i) out[static_cast<size_t>(i)] = read_elem(dtype_, p + offset_of(i) * es);
  return out;
}

::testing::AssertionResult DeviceTensor::untouched_outside_view() const {
  const size_t es = elem_size(dtype_);
  std::vector<char> in_view(static_cast<size_t>(storage_elems_), 0);
  for (int64_t i = 0; i < numel(); ++i) in_view[static_cast<size_t>(offset_of(i))] = 1;
  const auto *p = static_cast<const unsigned char *>(dev_);
  for (int64_t e = 0; e < storage_elems_; ++e) {
    if (in_view[static_cast<size_t>(e)]) continue;
    if (std::memcmp(p + e * es, snapshot_.data() + e * es, es) != 0)
      return ::testing::AssertionFailure() << "storage element " << e << " outside the view was written";
  }
  const size_t start = static_cast<size_t>(storage_elems_) * es;
  for (size_t b = 0; b < static_cast<size_t>(kGuardBytes); ++b)
    if (p[start + b] != snapshot_[start + b])
      return ::testing::AssertionFailure() << "guard byte " << b << " after the storage was written";
  return ::testing::AssertionSuccess();
}

double precision_threshold(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT: return 1.0 / 8192;
    case ACL_FLOAT16: return 1.0 / 1024;
    case ACL_BF16: return 1.0 / 128;
    case ACL_DOUBLE: return std::ldexp(1.0, -30);
    default: return 0;  // exact
  }
}

::testing::AssertionResult meets_absolute_bound(const DeviceTensor &out, const std::vector<double> &value,
                                                const std::vector<double> &bound) {
  const auto got = out.values();
  if (got.size() != value.size()) return ::testing::AssertionFailure() << "size " << got.size();
  const double T = precision_threshold(out.dtype());
  double sum = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = round_to(out.dtype(), value[i]);
    if (!std::isfinite(w) || !std::isfinite(g)) {
      if (std::isnan(w) ? !std::isnan(g) : g != w)
        return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << value[i];
      continue;
    }
    const double rel = std::fabs(g - value[i]) / (bound[i] + 1e-7);
    sum += rel;
    worst = std::max(worst, rel);
  }
  if (!got.empty() && sum / static_cast<double>(got.size()) >= T)
    return ::testing::AssertionFailure() << "MERE " << sum / static_cast<double>(got.size()) << " >= " << T;
  if (worst >= 10 * T) return ::testing::AssertionFailure() << "MARE " << worst << " >= " << 10 * T;
  return out.untouched_outside_view();
}

::testing::AssertionResult meets_precision(aclDataType dt, const std::vector<double> &actual,
                                           const std::vector<double> &golden) {
  if (actual.size() != golden.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << " vs golden " << golden.size();
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], g = golden[i];
    if (std::isnan(g) || std::isnan(a)) {
      if (std::isnan(g) && std::isnan(a)) continue;
      return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", expected " << g;
    }
    if (std::isinf(g) || std::isinf(a)) {
      if (a == g) continue;
      return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", expected " << g;
    }
    if (T == 0) {
      if (a != g) return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", expected " << g;
      continue;
    }
    const double rel = std::fabs(a - g) / (std::fabs(g) + 1e-7);
    sum += rel;
    if (rel > worst) {
      worst = rel;
      worst_i = i;
    }
  }
  if (T == 0 || actual.empty()) return ::testing::AssertionSuccess();
  const double mere = sum / static_cast<double>(actual.size());
  if (mere >= T || worst >= 10 * T)
    return ::testing::AssertionFailure() << "MERE " << mere << " MARE " << worst << " (threshold " << T
                                         << "); worst element " << worst_i << ": got " << actual[worst_i]
                                         << ", expected " << golden[worst_i];
  return ::testing::AssertionSuccess();
}

int run_op(const std::function<int(uint64_t *, aclOpExecutor **)> &phase1,
           const std::function<int(void *, uint64_t, aclOpExecutor *, aclrtStream)> &phase2, aclrtStream stream) {
  uint64_t ws_size = 0;
  aclOpExecutor *ex = nullptr;
  int rc = phase1(&ws_size, &ex);
  if (rc != 0) return rc;
  void *ws = nullptr;
  if (ws_size > 0 && aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  rc = phase2(ws, ws_size, ex, stream);
  int sync = stream ? aclrtSynchronizeStream(stream) : aclrtSynchronizeDevice();
  if (ws) aclrtFree(ws);
  return rc != 0 ? rc : sync;
}

::testing::AssertionResult fails_with(int status, int code, std::initializer_list<const char *> needles) {
  if (status != code)
    return ::testing::AssertionFailure() << "status " << status << ", expected " << code
                                         << " (message: " << aclGetRecentErrMsg() << ")";
  const char *msg = aclGetRecentErrMsg();
  std::string m = msg ? msg : "";
  for (const char *n : needles)
    if (m.find(n) == std::string::npos)
      return ::testing::AssertionFailure() << "message \"" << m << "\" does not mention \"" << n << "\"";
  return ::testing::AssertionSuccess();
}

}  // namespace opsnn::test
