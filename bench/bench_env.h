// What every benchmark program shares: the runtime initialised once, with one stream.
#pragma once

#include "acl/acl.h"

namespace opsnn::bench {

struct Env {
  aclrtStream stream = nullptr;
  Env() {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
  }
};
inline Env &env() {
  static Env e;
  return e;
}

}  // namespace opsnn::bench
