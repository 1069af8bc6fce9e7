// The capture passes' bookkeeping (capture.h): the allocation log, the planned places and the
// checks that the placing pass allocates and releases as the recording pass did.
#include "capture.h"

#include <atomic>
#include <mutex>

#include "acl/acl.h"
#include "opsnn/tensor.h"

namespace opsnn {
namespace detail {

namespace {

struct PassState {
  std::mutex mu;
  std::atomic<bool> active{false};
  bool placing = false;
  uint64_t pass = 0;   // this pass's number (numbers are never reused)
  uint64_t clock = 0;  // capture order: one tick per allocation, release and launch
  std::vector<PlannedBlock> blocks;
  size_t next = 0;  // placing: the next block to hand out
  std::vector<bool> released;
  std::vector<std::vector<size_t>> predecessors;
  std::shared_ptr<void> arena;
  char *base = nullptr;
  std::vector<std::function<void()>> deferred;
  std::string failure;
};

PassState &state() {
  static PassState *s = new PassState();  // never destroyed (tensors may outlive static destruction)
  return *s;
}

// Placing pass: block `j` may take its memory only once the blocks it shares memory with are gone.
void check_place(PassState &s, size_t j, uint64_t bytes, bool workspace) {
  const char *what = workspace ? "workspace" : "tensor";
  if (j >= s.blocks.size())
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: the step allocated more in its capture than in its recording pass "
                "(allocation " + std::to_string(j + 1) + ", a " + what + "): a captured step must allocate the same way every time");
  const PlannedBlock &b = s.blocks[j];
  if (b.workspace != workspace || bytes > b.bytes)
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: allocation " + std::to_string(j + 1) + " (a " + what + " of " +
                std::to_string(bytes) + " bytes) differs from the recording pass's (" + std::to_string(b.bytes) +
                " bytes): a captured step must allocate the same way every time");
  for (size_t i : s.predecessors[j])
    if (!s.released[i])
      throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: allocation " + std::to_string(i + 1) +
                  " is still alive where the recording pass had released it; its memory is planned for allocation " +
                  std::to_string(j + 1) + ": a captured step must release its tensors the same way every time");
}

}  // namespace

bool capture_active() { return state().active.load(std::memory_order_acquire); }

void *capture_place(size_t bytes, std::shared_ptr<void> *arena, int64_t *block, uint64_t *pass) {
  if (!capture_active()) return nullptr;
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (!s.placing) return nullptr;
  const size_t j = s.next;
  check_place(s, j, bytes, false);
  ++s.next;
  ++s.clock;
  *arena = s.arena;
  *block = static_cast<int64_t>(j);
  *pass = s.pass;
  return s.base + s.blocks[j].offset;
}

void capture_record(size_t bytes, int64_t *block, uint64_t *pass) {
  if (!capture_active()) return;
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  PlannedBlock b;
  b.bytes = bytes;
  b.first = s.clock++;
  *block = static_cast<int64_t>(s.blocks.size());
  *pass = s.pass;
  s.blocks.push_back(b);
}

bool capture_release(int64_t block, uint64_t pass, std::function<void()> &release) {
  if (!capture_active()) return false;
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  const uint64_t now = s.clock++;
  // The recording pass's tensors: the placing pass may not read them (capture_check_argument), so
  // they go at once, however the step drops them (the previous pass's outputs and gradients).
  if (s.placing && pass != 0 && pass + 1 == s.pass) return false;
  if (pass != s.pass) {  // memory from before this pass: the captured work may read it
    s.deferred.push_back(std::move(release));
    return true;
  }
  if (block < 0) return false;
  if (s.placing) {
    s.released[block] = true;
  } else {
    s.blocks[block].last = now;
  }
  return false;
}

bool capture_workspace(uint64_t bytes, void **ptr, int64_t *block) {
  if (!capture_active()) return false;
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  *ptr = nullptr;
  *block = -1;
  ++s.clock;  // the launch
  if (bytes == 0) return true;
  if (s.placing) {
    const size_t j = s.next;
    check_place(s, j, bytes, true);
    ++s.next;
    *block = static_cast<int64_t>(j);
    *ptr = s.base + s.blocks[j].offset;
    return true;
  }
  const aclError rc = aclrtMalloc(ptr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);  // the recording pass's own
  if (rc != ACL_SUCCESS) throw Error(rc, "opsnn.graph: workspace aclrtMalloc(" + std::to_string(bytes) + ") failed");
  PlannedBlock b;
  b.bytes = bytes;
  b.workspace = true;
  b.first = s.clock - 1;
  *block = static_cast<int64_t>(s.blocks.size());
  s.blocks.push_back(b);
  return true;
}

void capture_workspace_done(void *ptr, int64_t block) {
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  const uint64_t now = s.clock++;
  if (block < 0) return;
  if (s.placing) {
    s.released[block] = true;
    return;
  }
  s.blocks[block].last = now;
  aclrtFree(ptr);  // nothing ran: the discarded model never reads it
}

void capture_check_argument(uint64_t made_by_pass) {
  if (made_by_pass == 0 || !capture_active()) return;
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (s.placing && made_by_pass + 1 == s.pass)
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: the step reads a tensor that its own recording pass made (state "
                "kept across calls in a new tensor, e.g. an optimiser's buffer made at its first step, or `self.h = f(self.h)`); "
                "run a warm-up step first (warmup >= 1) or update such state in place");
}

static void begin_pass(bool placing) {
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (s.active.load())
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: a capture is already running (captures do not nest)");
  s.placing = placing;
  ++s.pass;
  s.clock = 0;
  s.next = 0;
  s.deferred.clear();
  s.failure.clear();
  s.active.store(true, std::memory_order_release);
}

void begin_recording_pass() {
  {
    PassState &s = state();
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.active.load()) s.blocks.clear();
  }
  begin_pass(false);
}

void begin_placing_pass(std::vector<PlannedBlock> blocks, std::shared_ptr<void> arena, char *base) {
  PassState &s = state();
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.active.load()) {
      s.predecessors = shared_predecessors(blocks);
      s.released.assign(blocks.size(), false);
      s.blocks = std::move(blocks);
      s.arena = std::move(arena);
      s.base = base;
    }
  }
  begin_pass(true);
}

PassResult end_pass() {
  PassState &s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  s.active.store(false, std::memory_order_release);
  PassResult r;
  r.failure = std::move(s.failure);
  if (s.placing) {
    if (r.failure.empty() && s.next != s.blocks.size())
      r.failure = "opsnn.graph: the step allocated " + std::to_string(s.next) + " blocks in its capture but " +
                  std::to_string(s.blocks.size()) + " in its recording pass: a captured step must allocate the same way every time";
    for (size_t i = 0; r.failure.empty() && i < s.blocks.size(); ++i)
      if (!s.blocks[i].kept() && !s.released[i])
        r.failure = "opsnn.graph: allocation " + std::to_string(i + 1) +
                    " outlives the step in the capture but not in the recording pass (its memory is shared): a captured "
                    "step must release its tensors the same way every time";
    s.arena.reset();
    s.base = nullptr;
  }
  r.blocks = std::move(s.blocks);
  s.blocks.clear();
  r.deferred = std::move(s.deferred);
  s.deferred.clear();
  s.predecessors.clear();
  s.released.clear();
  return r;
}

}  // namespace detail
}  // namespace opsnn
