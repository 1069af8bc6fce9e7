#include "core/workspace.h"

#include "aclnn/acl_meta.h"
#include "common/error.h"

namespace opsnn::core {

WsKey WorkspacePlan::book(const char *name, uint64_t bytes, uint64_t align) {
  if (align == 0 || (align & (align - 1)) != 0 || align > 4096)
    throw_error(ACLNN_ERR_INNER, "workspace block '%s': alignment %llu is not a power of two <= 4096", name,
                static_cast<unsigned long long>(align));
  const uint64_t off = (size_ + align - 1) / align * align;
  if (bytes > (uint64_t{1} << 60) - off)
    throw_error(ACLNN_ERR_PARAM_INVALID, "workspace block '%s' of %llu bytes is too large", name,
                static_cast<unsigned long long>(bytes));
  size_ = off + bytes;
  bookings_.push_back({name, off, bytes});
  offsets_.push_back(off);
  return WsKey{static_cast<int>(offsets_.size() - 1)};
}

std::string WorkspacePlan::describe() const {
  std::string s;
  for (const auto &b : bookings_) {
    if (!s.empty()) s += ", ";
    s += std::string(b.name) + " " + std::to_string(b.bytes) + "@" + std::to_string(b.offset);
  }
  return s;
}

}  // namespace opsnn::core
