/* OpsNN framework layer: capture one step (a training or inference step) as a graph with planned
 * memory, and replay it (docs/ARCHITECTURE.md, "Framework layer", graph capture).
 *
 * Modelled on torch.cuda.CUDAGraph: the step reads static tensors made before the capture (the
 * caller refills them between replays) and its results are static tensors that every replay
 * rewrites. capture() runs the step twice between aclmdlRICaptureBegin / aclmdlRICaptureEnd on
 * the layer's stream: a recording pass (its model is discarded) logs every allocation —
 * tensors' storage and launches' workspaces — with its lifetime in capture order; a plan gives
 * each an offset in one arena, blocks whose lifetimes do not overlap sharing memory; the second
 * pass captures the step with every allocation at its planned place. Blocks still alive when the
 * step ends (outputs, gradients, new state) get memory of their own. Phase 1 runs only during the
 * capture; replay() is one aclmdlRIExecuteAsync.
 *
 * The step must allocate and release the same way every time, and must not read device data on
 * the host or copy host data in (synchronize(), to_host() and from_host() throw during a capture):
 * the captured work has not run, and a host value would be frozen into the graph. C++17. */
#ifndef OPSNN_FRAMEWORK_GRAPH_H_
#define OPSNN_FRAMEWORK_GRAPH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "acl/acl.h"

namespace opsnn {

/* What the plan did with the step's memory (bytes, each block rounded up to 512). */
struct GraphMemoryReport {
  uint64_t planned_bytes = 0;    // the arena: every block of the step, placed with lifetime-based reuse
  uint64_t unplanned_bytes = 0;  // the blocks summed: what a capture keeps without a plan (each its own address)
  uint64_t live_peak_bytes = 0;  // the most bytes alive at once in capture order (no plan needs less)
  uint64_t kept_bytes = 0;       // blocks alive when the step ends (outputs, gradients, new state): never shared
  uint64_t workspace_bytes = 0;  // the launches' workspaces, summed
  uint64_t largest_workspace_bytes = 0;  // the largest one (an eager run's workspace arena needs this much)
  uint64_t blocks = 0, workspace_blocks = 0;
};

/* Is a capture running? (synchronize() and host copies throw then.) */
bool graph_capturing();

class Graph {
 public:
  Graph() = default;
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  /* Captures `step` (run twice: see above). Throws opsnn::Error when the step reads or writes
   * host data, allocates differently in its two passes, or a graph was captured already. */
  void capture(const std::function<void()> &step);
  /* Launches the captured step on the layer's stream (asynchronous, like any launch). */
  void replay();
  /* Destroys the model; the arena lives on while a tensor made by the step does. */
  void reset();
  bool captured() const { return model_ != nullptr; }
  const GraphMemoryReport &memory_report() const { return report_; }

 private:
  aclmdlRI model_ = nullptr;
  std::shared_ptr<void> arena_;
  std::vector<std::function<void()>> deferred_;  // releases of memory the replays may read
  GraphMemoryReport report_;
};

}  // namespace opsnn

#endif /* OPSNN_FRAMEWORK_GRAPH_H_ */
