// Events (ordering across streams, timing) and graph capture (aclmdlRI*).
#include <cstring>

#include "common/error.h"
#include "runtime/profiler.h"
#include "runtime/runtime_impl.h"

namespace opsnn::rt {
namespace {

std::shared_ptr<Event> find_event(aclrtEvent handle) {
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.ev_mu);
  auto it = r.events.find(reinterpret_cast<uintptr_t>(handle));
  return it == r.events.end() ? nullptr : it->second;
}

// Completed = never recorded (or reset), or the stream has passed the latest record.
bool event_complete_locked(const Event &e) { return e.gen == e.reset_at || e.done_gen >= e.gen; }

thread_local aclmdlRICaptureMode tls_capture_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

}  // namespace
}  // namespace opsnn::rt

using namespace opsnn;
using namespace opsnn::rt;

#define LOOKUP_EVENT(var, handle, api)                                                                    \
  if (!(handle)) return fail(ACL_ERROR_INVALID_PARAM, "%s: event is null", api);                          \
  std::shared_ptr<Event> var = find_event(handle);                                                        \
  if (!var)                                                                                               \
    return fail(ACL_ERROR_INVALID_PARAM, "%s: event %p is not a live event (never created or already destroyed)", \
                api, handle);

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
  if (!event) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEventWithFlag: event is null");
  if (flag & ~0x7Fu)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEventWithFlag: flag 0x%x has unknown bits", flag);
  ensure_initialized();
  auto e = std::make_shared<Event>(flag);
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.ev_mu);
  const uintptr_t handle = static_cast<uintptr_t>(r.next_event_id++) << 4;
  r.events.emplace(handle, std::move(e));
  *event = reinterpret_cast<aclrtEvent>(handle);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event) {
  if (!event) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is null");
  return aclrtCreateEventWithFlag(event, ACL_EVENT_TIME_LINE);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag) {
  if (!event) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEventExWithFlag: event is null");
  return aclrtCreateEventWithFlag(event, flag);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event) {
  if (!event) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event is null");
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.ev_mu);
  // Queued records/waits hold their own reference, so the object outlives pending work.
  if (r.events.erase(reinterpret_cast<uintptr_t>(event)) == 0)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event %p is not a live event", event);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  LOOKUP_EVENT(e, event, "aclrtRecordEvent");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtRecordEvent", &err);
  if (!s) return err;
  uint64_t g;
  {
    std::lock_guard<std::mutex> lk(e->mu);
    g = ++e->gen;
  }
  // Inside a capture the record runs at each replay; it then stamps the time again.
  return s->push([e, g] {
    {
      std::lock_guard<std::mutex> lk(e->mu);
      if (g >= e->done_gen) {
        e->done_gen = g;
        e->ts = std::chrono::steady_clock::now();
        e->has_ts = true;
      }
    }
    e->cv.notify_all();
    return 0;
  }, /*may_inline=*/true);  // never blocks: an idle stream may run it right here
}

ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  LOOKUP_EVENT(e, event, "aclrtResetEvent");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtResetEvent", &err);
  if (!s) return err;
  return s->push([e] {
    std::lock_guard<std::mutex> lk(e->mu);
    if (e->done_gen >= e->gen) {  // no record pending: back to "not recorded"
      e->reset_at = e->gen;
      e->has_ts = false;
    }
    return 0;
  }, /*may_inline=*/true);  // never blocks: an idle stream may run it right here
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  LOOKUP_EVENT(e, event, "aclrtStreamWaitEvent");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtStreamWaitEvent", &err);
  if (!s) return err;
  uint64_t g;
  {
    std::lock_guard<std::mutex> lk(e->mu);
    if (event_complete_locked(*e)) return ACL_SUCCESS;  // nothing to wait for
    g = e->gen;
  }
  return s->push([e, g] {
    std::unique_lock<std::mutex> lk(e->mu);
    e->cv.wait(lk, [&] { return e->done_gen >= g; });
    return 0;
  });
}

static aclError sync_event_body(aclrtEvent event, int32_t timeout, const char *api);

// The profiler (runtime/profiler.h): one relaxed load when off.
static aclError sync_event(aclrtEvent event, int32_t timeout, const char *api) {
  if (!prof::on()) return sync_event_body(event, timeout, api);
  const int64_t t0 = prof::now_ns();
  const aclError rc = sync_event_body(event, timeout, api);
  prof::record_span(prof::Cat::kSync, api, t0, 0, nullptr, rc);
  return rc;
}

static aclError sync_event_body(aclrtEvent event, int32_t timeout, const char *api) {
  LOOKUP_EVENT(e, event, api);
  if (timeout < -1) return fail(ACL_ERROR_INVALID_PARAM, "%s: timeout %d is invalid", api, timeout);
  std::unique_lock<std::mutex> lk(e->mu);
  const uint64_t g = e->gen;
  if (g == e->reset_at) return ACL_SUCCESS;
  auto done = [&] { return e->done_gen >= g; };
  if (timeout <= 0) {
    e->cv.wait(lk, done);
  } else if (!e->cv.wait_for(lk, std::chrono::milliseconds(timeout), done)) {
    return fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "%s: event %p not completed within %d ms", api, event, timeout);
  }
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return sync_event(event, -1, "aclrtSynchronizeEvent");
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  return sync_event(event, timeout, "aclrtSynchronizeEventWithTimeout");
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is null");
  LOOKUP_EVENT(e, event, "aclrtQueryEventStatus");
  std::lock_guard<std::mutex> lk(e->mu);
  *status = event_complete_locked(*e) ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEvent: status is null");
  LOOKUP_EVENT(e, event, "aclrtQueryEvent");
  std::lock_guard<std::mutex> lk(e->mu);
  *status = event_complete_locked(*e) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is null");
  LOOKUP_EVENT(e, event, "aclrtQueryEventWaitStatus");
  std::lock_guard<std::mutex> lk(e->mu);
  *status = event_complete_locked(*e) ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

static aclError event_time(const std::shared_ptr<Event> &e, const char *api, const char *which,
                           std::chrono::steady_clock::time_point *out) {
  std::lock_guard<std::mutex> lk(e->mu);
  if (e->gen == e->reset_at)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s was never recorded (or was reset)", api, which);
  if (e->done_gen < e->gen || !e->has_ts)
    return fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "%s: %s has not completed yet", api, which);
  *out = e->ts;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (!ms) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is null");
  if (!startEvent) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: startEvent is null");
  if (!endEvent) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: endEvent is null");
  LOOKUP_EVENT(a, startEvent, "aclrtEventElapsedTime");
  LOOKUP_EVENT(b, endEvent, "aclrtEventElapsedTime");
  std::chrono::steady_clock::time_point ta, tb;
  if (aclError rc = event_time(a, "aclrtEventElapsedTime", "startEvent", &ta)) return rc;
  if (aclError rc = event_time(b, "aclrtEventElapsedTime", "endEvent", &tb)) return rc;
  *ms = std::chrono::duration<float, std::milli>(tb - ta).count();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp) {
  if (!timestamp) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: timestamp is null");
  LOOKUP_EVENT(e, event, "aclrtEventGetTimestamp");
  std::chrono::steady_clock::time_point t;
  if (aclError rc = event_time(e, "aclrtEventGetTimestamp", "event", &t)) return rc;
  *timestamp = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
  return ACL_SUCCESS;
}

// ---- graph capture ---------------------------------------------------------------------------

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  if (mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
    return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureBegin: mode %d is invalid", static_cast<int>(mode));
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclmdlRICaptureBegin", &err);
  if (!s) return err;
  auto m = std::make_shared<Model>();
  m->device = s->device;
  Model *raw = m.get();
  if (!s->begin_capture(m))
    return fail(ACL_ERROR_RT_STREAM_CAPTURED, "aclmdlRICaptureBegin: stream %p is already being captured", stream);
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.model_mu);
  r.models.emplace(raw, std::move(m));
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                                    aclmdlRI *modelRI) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: status is null");
  if (!modelRI) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: modelRI is null");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclmdlRICaptureGetInfo", &err);
  if (!s) return err;
  std::shared_ptr<Model> m = s->active_capture();
  *status = m ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  *modelRI = m.get();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI) {
  if (!modelRI) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureEnd: modelRI is null");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclmdlRICaptureEnd", &err);
  if (!s) return err;
  std::shared_ptr<Model> m = s->end_capture();
  if (!m)
    return fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "aclmdlRICaptureEnd: stream %p is not being captured", stream);
  *modelRI = m.get();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode) {
  if (!mode) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: mode is null");
  int requested;  // read as an int: a C caller may store any value in the enum object
  std::memcpy(&requested, mode, sizeof requested);
  if (requested < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || requested > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
    return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: mode %d is invalid", requested);
  const aclmdlRICaptureMode previous = tls_capture_mode;
  tls_capture_mode = static_cast<aclmdlRICaptureMode>(requested);
  *mode = previous;
  return ACL_SUCCESS;
}

static std::shared_ptr<Model> find_model(aclmdlRI handle) {
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.model_mu);
  auto it = r.models.find(static_cast<Model *>(handle));
  return it == r.models.end() ? nullptr : it->second;
}

ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  if (!modelRI) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIExecuteAsync: modelRI is null");
  std::shared_ptr<Model> m = find_model(modelRI);
  if (!m) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIExecuteAsync: modelRI %p is not a live model", modelRI);
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclmdlRIExecuteAsync", &err);
  if (!s) return err;
  if (m->capturing)
    return fail(ACL_ERROR_RT_MODEL_CAPTURED, "aclmdlRIExecuteAsync: modelRI %p is still being captured", modelRI);
  // One queued item replays the whole model; the first failure is the item's failure. A model of
  // items that never block (launches, event records, copies) may run inline like a launch; one
  // holding an event wait or a host callback is always queued (it must not block the host thread).
  Task t = work_task([m] {
    int first = 0;
    std::string first_msg;
    for (const Task &w : m->works) {
      clear_last_error();
      const int rc = run_task(w);
      if (rc != 0 && first == 0) {
        first = rc;
        first_msg = last_error_message();
      }
    }
    if (first != 0) set_last_error(first, std::move(first_msg));
    return first;
  });
  return s->push_task(t, m->never_blocks ? InlineRule::kIfIdleAndLast : InlineRule::kNever);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  if (aclError rc = aclmdlRIExecuteAsync(modelRI, nullptr)) return rc;
  return aclrtSynchronizeStreamWithTimeout(nullptr, timeout);
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  if (!modelRI) return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIDestroy: modelRI is null");
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lk(r.model_mu);
  auto it = r.models.find(static_cast<Model *>(modelRI));
  if (it == r.models.end())
    return fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIDestroy: modelRI %p is not a live model", modelRI);
  if (it->second->capturing)
    return fail(ACL_ERROR_RT_MODEL_CAPTURED, "aclmdlRIDestroy: modelRI %p is still being captured", modelRI);
  r.models.erase(it);  // queued replays keep their own reference
  return ACL_SUCCESS;
}

}  // extern "C"
