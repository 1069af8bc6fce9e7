// Graph capture with planned memory (include/opsnn/graph.h): the two passes, the plan, the arena.
#include "opsnn/graph.h"

#include <algorithm>
#include <string>

#include "capture.h"
#include "memory_plan.h"
#include "opsnn/call.h"
#include "opsnn/tensor.h"

namespace opsnn {

namespace {

// The arena: one aclrtMalloc block, counted as tensor storage; freed (stream-ordered) by the last
// of the graph and the tensors placed in it.
struct Arena {
  void *ptr = nullptr;
  size_t bytes = 0;
  explicit Arena(size_t n) : bytes(n) {
    const aclError rc = aclrtMalloc(&ptr, std::max<size_t>(n, 1), ACL_MEM_MALLOC_HUGE_FIRST);
    if (rc != ACL_SUCCESS) throw Error(rc, "opsnn.graph: arena aclrtMalloc(" + std::to_string(n) + " bytes) failed");
    detail::count_storage_alloc(n);
  }
  ~Arena() {
    aclrtFree(ptr);
    detail::count_storage_free(bytes);
  }
};

void run_all(std::vector<std::function<void()>> &fns) {
  for (auto &f : fns) f();
  fns.clear();
}

// One pass: the step between aclmdlRICaptureBegin / End. Returns the model (null when `keep` is
// false: the model is destroyed) and the pass's log; any failure ends the capture and throws.
aclmdlRI run_pass(const std::function<void()> &step, bool keep, detail::PassResult *result) {
  aclError rc = aclmdlRICaptureBegin(stream(), ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  if (rc != ACL_SUCCESS) {
    *result = detail::end_pass();
    run_all(result->deferred);
    throw Error(rc, std::string("opsnn.graph: aclmdlRICaptureBegin failed: ") + aclGetRecentErrMsg());
  }
  aclmdlRI model = nullptr;
  try {
    step();
  } catch (...) {
    aclmdlRICaptureEnd(stream(), &model);
    aclmdlRIDestroy(model);
    *result = detail::end_pass();
    run_all(result->deferred);  // nothing captured will run
    throw;
  }
  rc = aclmdlRICaptureEnd(stream(), &model);
  *result = detail::end_pass();
  if (rc != ACL_SUCCESS || !result->failure.empty() || !keep) {
    if (model) aclmdlRIDestroy(model);
    run_all(result->deferred);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("opsnn.graph: aclmdlRICaptureEnd failed: ") + aclGetRecentErrMsg());
    if (!result->failure.empty()) throw Error(ACL_ERROR_RT_STREAM_CAPTURED, result->failure);
    return nullptr;
  }
  return model;
}

GraphMemoryReport report_of(const std::vector<detail::PlannedBlock> &blocks, uint64_t planned, uint64_t live_peak) {
  GraphMemoryReport r;
  r.planned_bytes = planned;
  r.live_peak_bytes = live_peak;
  for (const detail::PlannedBlock &b : blocks) {
    const uint64_t n = detail::plan_aligned(b.bytes);
    r.unplanned_bytes += n;
    if (b.kept()) r.kept_bytes += n;
    if (b.workspace) {
      r.workspace_bytes += n;
      r.largest_workspace_bytes = std::max(r.largest_workspace_bytes, n);
      ++r.workspace_blocks;
    }
  }
  r.blocks = blocks.size();
  return r;
}

}  // namespace

bool graph_capturing() { return detail::capture_active(); }

Graph::~Graph() { reset(); }

void Graph::capture(const std::function<void()> &step) {
  if (graph_capturing()) throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: capture() inside a capture (captures do not nest)");
  if (model_) throw Error(ACL_ERROR_RT_MODEL_CAPTURED, "opsnn.graph: this graph is captured already (reset() it first)");
  synchronize();  // earlier work's failures surface here, not inside the capture
  detail::PassResult recorded;
  detail::begin_recording_pass();
  run_pass(step, false, &recorded);

  std::vector<detail::PlannedBlock> blocks = std::move(recorded.blocks);
  const uint64_t live_peak = detail::live_peak(blocks);
  for (detail::PlannedBlock &b : blocks)
    if (b.kept()) b.first = 0;  // a block that outlives the step is read across replays: never shared
  const uint64_t planned = detail::plan_offsets(blocks);
  auto arena = std::make_shared<Arena>(planned);
  const GraphMemoryReport report = report_of(blocks, planned, live_peak);

  detail::PassResult placed;
  detail::begin_placing_pass(std::move(blocks), arena, static_cast<char *>(arena->ptr));
  model_ = run_pass(step, true, &placed);
  arena_ = std::move(arena);
  deferred_ = std::move(placed.deferred);
  report_ = report;
}

void Graph::replay() {
  if (!model_) throw Error(ACL_ERROR_INVALID_PARAM, "opsnn.graph: replay() of a graph that is not captured (never captured, or reset)");
  if (graph_capturing()) throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: replay() inside a capture");
  const aclError rc = aclmdlRIExecuteAsync(model_, stream());
  if (rc != ACL_SUCCESS) throw Error(rc, std::string("opsnn.graph: aclmdlRIExecuteAsync failed: ") + aclGetRecentErrMsg());
}

void Graph::reset() {
  if (model_) aclmdlRIDestroy(model_);  // queued replays keep their own reference
  model_ = nullptr;
  arena_.reset();        // freed stream-ordered, or kept by the step's tensors still alive
  run_all(deferred_);    // likewise stream-ordered
}

}  // namespace opsnn
