// Ordered implementation lists: how every engine chooses its kernel, in phase 1.
//
// An engine lists its candidates best first; each answers "ok" or "rejected: <reason>" for the
// descriptor, and the first that is ok is taken. A candidate that is a kernel tier names the ISA it
// needs: the OPSNN_MAX_ISA cap (and the CPU) reject it here, and OPSNN_KERNELS=reference rejects
// every tier but the list's last entry, which must be the reference (always ok). So every engine
// honours both variables by construction. Lists of variants of one path (isa kNoIsa) only carry
// their own predicates.
//
// The reasons are formatted only while the choice is traced (verbose mode, core/verbose.h): an
// untraced choice costs the predicates and one branch per rejection.
//
//   const core::Impl<Desc> kList[] = {
//       {"avx2", int(core::Isa::kAvx2), [](const Desc &d, const core::Why &why) {
//          return d.m <= 4 || why("M=%lld > 4", (long long)d.m); }},
//       {"reference", int(core::Isa::kPortable), nullptr},
//   };
//   int i = core::choose(kList, d, trace);   // trace: core::ImplTrace *, null when not traced
#pragma once

#include <cstddef>
#include <string>

#include "core/cpu_features.h"

namespace opsnn::core {

// Where the rejections of one engine's choices go: "<candidate>: <reason>", joined by "; ".
struct ImplTrace {
  std::string rejected;
  void add(const char *name, const char *reason);
};

// A candidate's verdict: `return why("M=%lld > 4", m);` rejects it (returns false) and, when traced,
// records the reason. Reasons must not contain ',' (the verbose lines are comma-separated).
class Why {
 public:
  Why(ImplTrace *trace, const char *name) : trace_(trace), name_(name) {}
  bool operator()(const char *fmt, ...) const __attribute__((format(printf, 2, 3)));
  bool traced() const { return trace_ != nullptr; }

 private:
  ImplTrace *trace_;
  const char *name_;
};

constexpr int kNoIsa = -1;

template <class Desc>
struct Impl {
  const char *name;
  int isa;                                 // core::Isa the candidate runs on, or kNoIsa (a path variant)
  bool (*ok)(const Desc &, const Why &);  // null: always ok
};

// nullptr when kernels of tier `isa` may run; otherwise why not: "OPSNN_MAX_ISA=avx2" (capped) or
// "CPU has no avx512" (not detected).
const char *isa_rejection(Isa isa);
// "OPSNN_KERNELS=reference" when reference kernels are forced, else nullptr.
const char *reference_rejection();

// Index of the first candidate of `list` that is ok for `d`. The last entry is taken when every
// other one is rejected (it should accept everything).
template <class Desc>
int choose(const Impl<Desc> *list, int n, const Desc &d, ImplTrace *trace) {
  const char *reference = reference_rejection();
  for (int i = 0; i + 1 < n; ++i) {
    const Impl<Desc> &c = list[i];
    if (c.isa != kNoIsa) {
      const char *no = reference != nullptr ? reference : isa_rejection(static_cast<Isa>(c.isa));
      if (no != nullptr) {
        if (trace != nullptr) trace->add(c.name, no);
        continue;
      }
    }
    if (c.ok == nullptr || c.ok(d, Why(trace, c.name))) return i;
  }
  return n - 1;
}
template <class Desc, size_t N>
int choose(const Impl<Desc> (&list)[N], const Desc &d, ImplTrace *trace) {
  return choose(&list[0], static_cast<int>(N), d, trace);
}

}  // namespace opsnn::core
