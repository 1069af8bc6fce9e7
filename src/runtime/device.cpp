// Initialisation, devices, contexts and small process-wide runtime functions.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/half.h"
#include "common/log.h"
#include "runtime/profiler.h"
#include "runtime/runtime_impl.h"

namespace opsnn::rt {
namespace {
thread_local int tls_device = 0;
thread_local Context *tls_context = nullptr;

int read_device_count() {
  const char *env = std::getenv("OPSNN_DEVICE_COUNT");
  if (!env || !*env) return 1;
  char *end = nullptr;
  long v = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || v < 1 || v > kMaxDevices) {
    OPSNN_LOG(LogLevel::kWarning, "OPSNN_DEVICE_COUNT=%s is invalid (expected 1..%d); using 1", env, kMaxDevices);
    return 1;
  }
  return static_cast<int>(v);
}

size_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return size_t{16} << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page);
}

size_t read_capacity() {
  const char *env = std::getenv("OPSNN_DEVICE_MEMORY");
  if (env && *env) {
    bool ok = false;
    size_t v = parse_size(env, &ok);
    if (ok && v > 0) return v;
    OPSNN_LOG(LogLevel::kWarning, "OPSNN_DEVICE_MEMORY=%s is invalid (bytes with optional K/M/G suffix)", env);
  }
  return physical_memory();
}

// Stops every stream (drained first) and releases cached memory; the runtime can start again.
void teardown_locked(Runtime &r) {
  std::vector<uintptr_t> all;
  {
    std::shared_lock<std::shared_mutex> lk(r.reg_mu);
    for (auto &kv : r.streams) all.push_back(kv.first);
  }
  for (uintptr_t key : all) destroy_stream(key);
  memory_collect_deferred();
  memory_release_cached(-1);
  r.initialized.store(false, std::memory_order_release);
}

}  // namespace

Runtime &runtime() {
  static Runtime *r = new Runtime;  // intentionally leaked (see runtime_impl.h)
  return *r;
}

int current_device() { return tls_device; }
void set_current_device(int device) { tls_device = device; }
bool valid_device(int device) { return device >= 0 && device < runtime().device_count.load(); }

void ensure_initialized() {
  Runtime &r = runtime();
  if (r.initialized.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lk(r.init_mu);
  if (r.initialized.load(std::memory_order_relaxed)) return;
  r.device_count.store(read_device_count());
  r.capacity_bytes = read_capacity();
  for (int i = 0; i < kMaxDevices; ++i) r.default_contexts[i].device = i;
  r.initialized.store(true, std::memory_order_release);
}

}  // namespace opsnn::rt

using namespace opsnn;
using namespace opsnn::rt;

#define CHECK_DEVICE(id, api)                                                                            \
  if (!valid_device(id))                                                                                 \
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: deviceId %d is invalid (device count %d)", api, (int)(id), \
                runtime().device_count.load());

extern "C" {

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath) {
  Runtime &r = runtime();
  if (configPath && *configPath && access(configPath, R_OK) != 0)
    OPSNN_LOG(LogLevel::kWarning, "aclInit: config file '%s' is not readable; ignored", configPath);
  ensure_initialized();
  std::lock_guard<std::mutex> lk(r.init_mu);
  if (r.explicit_init)
    return fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialised (the runtime stays usable)");
  r.explicit_init = true;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.init_mu);
  const bool was_init = r.explicit_init;
  r.explicit_init = false;
  teardown_locked(r);
  prof::flush_env_trace();  // OPSNN_PROFILE: the trace so far (rewritten whole at exit)
  if (!was_init) return fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: not initialised (aclInit not called or already finalized)");
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  if (!runMode) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is null");
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetLastError: level %d is invalid", static_cast<int>(level));
  int code = last_error_code();
  clear_last_error();
  return code;
}

ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtPeekAtLastError: level %d is invalid", static_cast<int>(level));
  return last_error_code();
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t) { return ACL_SUCCESS; }
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t) { return ACL_SUCCESS; }

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count) {
  if (!count) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  ensure_initialized();
  *count = static_cast<uint32_t>(runtime().device_count.load());
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) {
  ensure_initialized();
  CHECK_DEVICE(deviceId, "aclrtSetDevice");
  set_current_device(deviceId);
  tls_context = nullptr;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId) {
  if (!deviceId) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  ensure_initialized();
  *deviceId = current_device();
  return ACL_SUCCESS;
}

static aclError reset_device(int32_t deviceId, const char *api) {
  ensure_initialized();
  CHECK_DEVICE(deviceId, api);
  Runtime &r = runtime();
  wait_all_idle(deviceId);
  Stream *def = r.devices[deviceId].default_stream.load();
  if (def && !(current_worker_stream() == def)) destroy_stream(stream_key(def));
  memory_collect_deferred();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) { return reset_device(deviceId, "aclrtResetDevice"); }
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId) {
  return reset_device(deviceId, "aclrtResetDeviceForce");
}

static aclError sync_device_body(int32_t timeout, const char *api);

// The profiler (runtime/profiler.h): one relaxed load when off.
static aclError sync_device(int32_t timeout, const char *api) {
  if (!prof::on()) return sync_device_body(timeout, api);
  const int64_t t0 = prof::now_ns();
  const aclError rc = sync_device_body(timeout, api);
  prof::record_span(prof::Cat::kSync, api, t0, 0, nullptr, rc);
  return rc;
}

static aclError sync_device_body(int32_t timeout, const char *api) {
  ensure_initialized();
  if (timeout < -1) return fail(ACL_ERROR_INVALID_PARAM, "%s: timeout %d is invalid", api, timeout);
  const int dev = current_device();
  CHECK_DEVICE(dev, api);
  auto streams = snapshot_streams(dev);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout > 0 ? timeout : 0);
  for (auto &s : streams) {
    if (s->is_current_worker()) continue;
    int64_t left = -1;
    if (timeout > 0) {
      left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left < 0) left = 0;
    }
    if (!s->wait_idle(left))
      return fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "%s: device %d did not finish within %d ms", api, dev, timeout);
  }
  memory_collect_deferred();
  int first = 0;
  std::string first_msg;
  for (auto &s : streams) {
    std::string msg;
    if (int code = s->take_error(&msg)) {
      if (first == 0) {
        first = code;
        first_msg = std::move(msg);
      }
    }
  }
  if (first != 0) {
    set_last_error(first, std::move(first_msg));
    return first;
  }
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) { return sync_device(-1, "aclrtSynchronizeDevice"); }
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  return sync_device(timeout, "aclrtSynchronizeDeviceWithTimeout");
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  if (!canAccessPeer) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceCanAccessPeer: canAccessPeer is null");
  ensure_initialized();
  CHECK_DEVICE(deviceId, "aclrtDeviceCanAccessPeer");
  CHECK_DEVICE(peerDeviceId, "aclrtDeviceCanAccessPeer");
  *canAccessPeer = deviceId != peerDeviceId ? 1 : 0;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  ensure_initialized();
  CHECK_DEVICE(peerDeviceId, "aclrtDeviceEnablePeerAccess");
  if (flags != 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceEnablePeerAccess: flags must be 0 (got %u)", flags);
  // All devices share host memory: access is always possible.
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  ensure_initialized();
  CHECK_DEVICE(peerDeviceId, "aclrtDeviceDisablePeerAccess");
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
  ensure_initialized();
  CHECK_DEVICE(deviceId, "aclrtCreateContext");
  auto c = std::make_unique<Context>();
  c->device = deviceId;
  Context *raw = c.get();
  {
    Runtime &r = runtime();
    std::lock_guard<std::mutex> lk(r.ctx_mu);
    r.contexts.emplace(raw, std::move(c));
  }
  tls_context = raw;  // a new context becomes current for the calling thread
  set_current_device(deviceId);
  *context = raw;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context is null");
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.ctx_mu);
  if (r.contexts.erase(static_cast<Context *>(context)) == 0)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context %p was not created by aclrtCreateContext", context);
  if (tls_context == context) tls_context = nullptr;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context is null");
  ensure_initialized();
  Runtime &r = runtime();
  Context *c = static_cast<Context *>(context);
  bool known = c >= &r.default_contexts[0] && c < &r.default_contexts[kMaxDevices];
  if (!known) {
    std::lock_guard<std::mutex> lk(r.ctx_mu);
    known = r.contexts.count(c) != 0;
  }
  if (!known) return fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context %p is not a live context", context);
  CHECK_DEVICE(c->device, "aclrtSetCurrentContext");
  tls_context = c;
  set_current_device(c->device);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
  ensure_initialized();
  const int dev = current_device();
  CHECK_DEVICE(dev, "aclrtGetCurrentContext");
  *context = tls_context ? tls_context : &runtime().default_contexts[dev];
  return ACL_SUCCESS;
}

// ---- acl_base.h functions ------------------------------------------------------------------

ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value) { return opsnn::half_to_float(value); }
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value) { return opsnn::float_to_half(value); }

}  // extern "C"

struct aclDataBuffer {
  void *data;
  size_t size;
};

extern "C" {

ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size) {
  if (!data && size != 0) {
    fail(ACL_ERROR_INVALID_PARAM, "aclCreateDataBuffer: data is null but size is %zu", size);
    return nullptr;
  }
  return new aclDataBuffer{data, size};
}

ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer) {
  if (!dataBuffer) return fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: dataBuffer is null");
  delete dataBuffer;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size) {
  if (!dataBuffer) return fail(ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer: dataBuffer is null");
  if (!data && size != 0)
    return fail(ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer: data is null but size is %zu", size);
  dataBuffer->data = data;
  dataBuffer->size = size;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer) {
  if (!dataBuffer) {
    fail(ACL_ERROR_INVALID_PARAM, "aclGetDataBufferAddr: dataBuffer is null");
    return nullptr;
  }
  return dataBuffer->data;
}

ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer) {
  if (!dataBuffer) {
    fail(ACL_ERROR_INVALID_PARAM, "aclGetDataBufferSizeV2: dataBuffer is null");
    return 0;
  }
  return dataBuffer->size;
}

ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...) {
  if (!fmt) return;
  int lvl = static_cast<int>(logLevel);
  if (lvl < 0 || lvl > 3) return;
  const LogLevel level = static_cast<LogLevel>(lvl);
  if (static_cast<int>(level) < static_cast<int>(log_level())) return;
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  log_message(level, file ? file : "?", static_cast<int>(line), "%s: %s", func ? func : "?", buf);
}

ACL_FUNC_VISIBILITY const char *aclrtGetSocName() {
  static const std::string name = [] {
    std::string s = "OpsNN-CPU";
#if defined(__x86_64__)
    s += " x86_64";
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
      s += " (AVX-512)";
    else if (__builtin_cpu_supports("avx2"))
      s += " (AVX2)";
    else
      s += " (SSE)";
#elif defined(__aarch64__)
    s += " aarch64 (NEON)";
#else
    s += " generic";
#endif
    return s;
  }();
  return name.c_str();
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num) {
  if (!cannAttrList) return fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: cannAttrList is null");
  if (!num) return fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: num is null");
  static const aclCannAttr kAttrs[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};
  *cannAttrList = kAttrs;
  *num = sizeof kAttrs / sizeof kAttrs[0];
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value) {
  if (!value) return fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: value is null");
  switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN: *value = 1; return ACL_SUCCESS;  // IEEE inf/nan semantics
    case ACL_CANN_ATTR_BF16: *value = 1; return ACL_SUCCESS;
    case ACL_CANN_ATTR_JIT_COMPILE: *value = 0; return ACL_SUCCESS;
    default:
      return fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: cannAttr %d is invalid", static_cast<int>(cannAttr));
  }
}

}  // extern "C"

namespace opsnn::core {
int num_threads();
}

extern "C" ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
                                                                int64_t *value) {
  if (!value) return fail(ACL_ERROR_INVALID_PARAM, "aclGetDeviceCapability: value is null");
  ensure_initialized();
  if (deviceId >= static_cast<uint32_t>(runtime().device_count.load()))
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclGetDeviceCapability: deviceId %u is invalid", deviceId);
  switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = opsnn::core::num_threads(); return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: {
      long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
      *value = l2 > 0 ? l2 : 1024 * 1024;
      return ACL_SUCCESS;
    }
    default:
      return fail(ACL_ERROR_INVALID_PARAM, "aclGetDeviceCapability: deviceInfo %d is invalid",
                  static_cast<int>(deviceInfo));
  }
}
