// The framework's side of a graph capture (include/opsnn/graph.h): while a pass of
// opsnn::Graph::capture runs, Storage and OpCall route their memory through these hooks.
// Recording pass: allocations are real (the model is discarded) and logged with their lifetimes.
// Placing pass: each allocation takes its planned place in the graph's arena. In both, memory
// from before the pass that is released during it is kept until the graph goes (the captured
// work may read it at every replay). Internal to libopsnn_framework.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memory_plan.h"

namespace opsnn {
namespace detail {

// Is a pass running? (one relaxed load: the hooks' fast path)
bool capture_active();

// Storage: the arena address of the next planned block in a placing pass (its owner keeps the
// arena alive), else null. `block` / `pass` identify the allocation for capture_release.
void *capture_place(size_t bytes, std::shared_ptr<void> *arena, int64_t *block, uint64_t *pass);
// Storage: a recording pass logs a real allocation.
void capture_record(size_t bytes, int64_t *block, uint64_t *pass);
// Storage's destructor: true when the pass keeps `release` to run when the graph goes.
bool capture_release(int64_t block, uint64_t pass, std::function<void()> &release);

// OpCall: a launch inside a pass. True when a pass is running; *ptr is then the workspace
// (the recording pass's own allocation, or the planned place) and *block its number.
bool capture_workspace(uint64_t bytes, void **ptr, int64_t *block);
void capture_workspace_done(void *ptr, int64_t block);

// OpCall: an argument made by the recording pass, read in the placing pass, holds nothing (the
// recording pass ran nothing): state carried across calls in a new tensor rather than updated in
// place. Throws then.
void capture_check_argument(uint64_t made_by_pass);

// Graph::capture's passes. begin_pass throws when a pass already runs.
struct PassResult {
  std::vector<PlannedBlock> blocks;                 // the recording pass's log
  std::vector<std::function<void()>> deferred;      // releases kept for the graph
  std::string failure;                              // the first broken assumption, if any
};
void begin_recording_pass();
void begin_placing_pass(std::vector<PlannedBlock> blocks, std::shared_ptr<void> arena, char *base);
PassResult end_pass();

// Storage accounting for the arena (tensor.cpp's memory_stats counters).
void count_storage_alloc(size_t bytes);
void count_storage_free(size_t bytes);

}  // namespace detail
}  // namespace opsnn
