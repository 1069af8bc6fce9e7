// Workspace booked by key: phase 1 books named blocks (`OpBuilder::book`), steps keep the returned
// key and phase 2 asks for its address (`LaunchArgs::get`). Offsets live in the executor, never in
// step fields, so a step cannot read another step's block by a stale or mistyped offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opsnn::core {

// A booked block of one executor's workspace. Default: none booked (get() is then a bug).
struct WsKey {
  int id = -1;
  bool booked() const { return id >= 0; }
};

struct WorkspaceBooking {
  const char *name;  // static label, shown by the verbose mode ("prelu.terms")
  uint64_t offset;   // from the launch's 64-byte aligned workspace start
  uint64_t bytes;
};

// The workspace layout of one executor: bookings in phase-1 order, packed with their alignment.
class WorkspacePlan {
 public:
  WsKey book(const char *name, uint64_t bytes, uint64_t align);
  uint64_t offset(WsKey k) const { return offsets_[static_cast<size_t>(k.id)]; }
  const uint64_t *offsets() const { return offsets_.data(); }
  uint64_t size() const { return size_; }
  const std::vector<WorkspaceBooking> &bookings() const { return bookings_; }
  std::string describe() const;  // "prelu.terms 8192@0, prelu.partials 64@8192"

 private:
  std::vector<WorkspaceBooking> bookings_;
  std::vector<uint64_t> offsets_;  // by key id, for the launch path
  uint64_t size_ = 0;
};

}  // namespace opsnn::core
