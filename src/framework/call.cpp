// The framework's call path (include/opsnn/call.h): descriptors, phase 1, workspace, launch on the
// layer's stream. Only the public acl / aclnn API is used.
#include "opsnn/call.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace opsnn {

namespace {

struct LayerStream {
  aclrtStream stream = nullptr;
  LayerStream() {
    const aclError init = aclInit(nullptr);
    if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE)
      throw Error(init, std::string("aclInit failed: ") + aclGetRecentErrMsg());
    aclError rc = aclrtSetDevice(0);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtSetDevice(0) failed: ") + aclGetRecentErrMsg());
    rc = aclrtCreateStream(&stream);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtCreateStream failed: ") + aclGetRecentErrMsg());
  }
  // Never destroyed: tensors may outlive static destruction order (Python's interpreter exit).
};

LayerStream &layer() {
  static LayerStream *s = new LayerStream();
  return *s;
}

std::atomic<uint64_t> g_calls{0}, g_ws_bytes{0}, g_ws_max{0};

std::string recent_message() {
  const char *m = aclGetRecentErrMsg();
  return m ? std::string(m) : std::string();
}

}  // namespace

aclrtStream stream() { return layer().stream; }

void synchronize() {
  const aclError rc = aclrtSynchronizeStream(stream());
  if (rc != ACL_SUCCESS) throw Error(rc, "aclrtSynchronizeStream failed (a launch on the layer's stream failed): " + recent_message());
}

CallStats call_stats() {
  CallStats s;
  s.calls = g_calls.load();
  s.workspace_bytes = g_ws_bytes.load();
  s.max_workspace = g_ws_max.load();
  return s;
}

void reset_call_stats() {
  g_calls = 0;
  g_ws_bytes = 0;
  g_ws_max = 0;
}

OpCall::~OpCall() {
  for (aclTensor *t : tensors_) aclDestroyTensor(t);
  for (aclScalar *s : scalars_) aclDestroyScalar(s);
  for (aclIntArray *a : int_arrays_) aclDestroyIntArray(a);
  for (aclBoolArray *a : bool_arrays_) aclDestroyBoolArray(a);
  for (aclTensorList *l : lists_) aclDestroyTensorList(l);  // owns its tensors
}

static aclTensor *make_descriptor(const Tensor &t) {
  const int64_t storage = t.storage_numel();
  aclTensor *d = aclCreateTensor(t.shape().data(), t.shape().size(), t.dtype(), t.strides().data(), t.offset(),
                                 ACL_FORMAT_ND, &storage, 1, t.storage()->data());
  if (!d) throw Error(161001, "aclCreateTensor failed: " + recent_message());
  return d;
}

aclTensor *OpCall::tensor(const Tensor *t) {
  if (t == nullptr || !t->defined()) return nullptr;
  aclTensor *d = make_descriptor(*t);
  tensors_.push_back(d);
  return d;
}

aclScalar *OpCall::scalar(const Scalar *s) {
  if (s == nullptr) return nullptr;
  aclScalar *r = nullptr;
  bool b = s->b;
  int64_t i = s->i;
  double d = s->d;
  switch (s->kind) {
    case Scalar::kBool: r = aclCreateScalar(&b, ACL_BOOL); break;
    case Scalar::kInt: r = aclCreateScalar(&i, ACL_INT64); break;
    case Scalar::kDouble: r = aclCreateScalar(&d, ACL_DOUBLE); break;
  }
  if (!r) throw Error(161001, "aclCreateScalar failed: " + recent_message());
  scalars_.push_back(r);
  return r;
}

aclScalar *OpCall::scalar_as(double v, aclDataType dtype) {
  Scalar s;
  if (dtype == ACL_BOOL) s = Scalar::of(v != 0.0);
  else if (dtype == ACL_INT64) s = Scalar::of(static_cast<int64_t>(v));
  else s = Scalar::of(v);
  return scalar(&s);
}

aclIntArray *OpCall::int_array(const std::vector<int64_t> *v) {
  if (v == nullptr) return nullptr;
  aclIntArray *a = aclCreateIntArray(v->data(), v->size());
  if (!a) throw Error(161001, "aclCreateIntArray failed: " + recent_message());
  int_arrays_.push_back(a);
  return a;
}

aclBoolArray *OpCall::bool_array(const std::vector<bool> *v) {
  if (v == nullptr) return nullptr;
  std::unique_ptr<bool[]> tmp(new bool[v->size() + 1]);
  for (size_t i = 0; i < v->size(); ++i) tmp[i] = (*v)[i];
  aclBoolArray *a = aclCreateBoolArray(tmp.get(), v->size());
  if (!a) throw Error(161001, "aclCreateBoolArray failed: " + recent_message());
  bool_arrays_.push_back(a);
  return a;
}

aclTensorList *OpCall::tensor_list(const std::vector<Tensor> *v) {
  if (v == nullptr) return nullptr;
  std::vector<aclTensor *> ds;
  try {
    for (const Tensor &t : *v) ds.push_back(make_descriptor(t));
  } catch (...) {
    for (aclTensor *d : ds) aclDestroyTensor(d);
    throw;
  }
  aclTensorList *l = aclCreateTensorList(ds.data(), ds.size());
  if (!l) {
    for (aclTensor *d : ds) aclDestroyTensor(d);
    throw Error(161001, "aclCreateTensorList failed: " + recent_message());
  }
  lists_.push_back(l);
  return l;
}

void OpCall::check(int rc, const char *phase) const {
  if (rc == 0) return;
  std::string msg = recent_message();
  if (msg.empty()) msg = "(no message)";
  throw Error(rc, api_ + " (" + phase + ") failed with status " + std::to_string(rc) + ": " + msg);
}

void *OpCall::acquire_workspace(uint64_t bytes) {
  ++g_calls;
  if (bytes == 0) return nullptr;
  g_ws_bytes += bytes;
  uint64_t prev = g_ws_max.load();
  while (prev < bytes && !g_ws_max.compare_exchange_weak(prev, bytes)) {
  }
  void *p = nullptr;
  const aclError rc = aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  if (rc != ACL_SUCCESS) throw Error(rc, api_ + ": workspace aclrtMalloc(" + std::to_string(bytes) + ") failed: " + recent_message());
  return p;
}

void OpCall::release_workspace(void *p) {
  if (p) aclrtFree(p);  // stream-ordered: the block is reused only after the launch has run
}

}  // namespace opsnn
