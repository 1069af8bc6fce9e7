// OpsNN example: the framework layer's C++ core (include/opsnn/tensor.h, call.h; libopsnn_framework).
// Tensors over aclrtMalloc storage, views without copies, and aclnn calls through opsnn::OpCall:
// y = relu(x^T * 2 + 1) on a transposed view, then a repeated call served by the executor cache,
// then the same step captured as a graph (opsnn/graph.h) and replayed on new data in x.
// Every result is checked against a host reference; exit status 1 on a mismatch.
#include <cmath>
#include <cstdio>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "opsnn/call.h"
#include "opsnn/graph.h"
#include "opsnn/tensor.h"

// Elements of relu(host^T * 2 + 1) (host is [R, C]) that differ from out ([C, R]).
static int mismatches(const std::vector<float> &host, const std::vector<float> &out, int R, int C) {
  int bad = 0;
  for (int i = 0; i < C; ++i)
    for (int j = 0; j < R; ++j)
      if (out[i * R + j] != std::fmax(host[j * C + i] * 2.0f + 1.0f, 0.0f)) ++bad;
  return bad;
}

static opsnn::Tensor muls_adds_relu(const opsnn::Tensor &x) {
  opsnn::Tensor t = opsnn::Tensor::empty(x.shape(), x.dtype());
  {
    opsnn::OpCall c("aclnnMuls", "io");  // roles: self read, out written
    aclTensor *a = c.tensor(x), *o = c.tensor(t);
    aclScalar *two = c.scalar(opsnn::Scalar::of(2.0));
    c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnMulsGetWorkspaceSize(a, two, o, ws, ex); }, aclnnMuls);
  }
  {
    opsnn::OpCall c("aclnnInplaceAdds", "b");  // in place
    aclTensor *a = c.tensor(t);
    aclScalar *one = c.scalar(opsnn::Scalar::of(1.0)), *alpha = c.scalar(opsnn::Scalar::of(int64_t{1}));
    c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnInplaceAddsGetWorkspaceSize(a, one, alpha, ws, ex); },
          aclnnInplaceAdds);
  }
  opsnn::Tensor y = opsnn::Tensor::empty(x.shape(), x.dtype());
  opsnn::OpCall c("aclnnRelu", "io");
  aclTensor *a = c.tensor(t), *o = c.tensor(y);
  c.run([&](uint64_t *ws, aclOpExecutor **ex) { return aclnnReluGetWorkspaceSize(a, o, ws, ex); }, aclnnRelu);
  return y;
}

int main() {
  try {
    const int R = 3, C = 4;
    std::vector<float> host(R * C);
    for (int i = 0; i < R * C; ++i) host[i] = static_cast<float>(i) - 5.5f;
    opsnn::Tensor x = opsnn::Tensor::from_host(host.data(), {R, C}, ACL_FLOAT);
    opsnn::Tensor xt = x.transpose(0, 1);  // a view: [C, R], strides [1, C]
    if (xt.storage() != x.storage() || xt.is_contiguous()) {
      std::fprintf(stderr, "FAILED: transpose copied\n");
      return 1;
    }
    int bad = 0;
    for (int round = 0; round < 3; ++round) {  // rounds 2 and 3 are executor-cache hits
      opsnn::Tensor y = muls_adds_relu(xt);
      std::vector<float> out(R * C);
      y.to_host(out.data());
      bad += mismatches(host, out, R, C);
    }
    // The step captured once (phase 1 runs only now), replayed after refilling x in place.
    opsnn::Tensor graph_y;
    opsnn::Graph graph;
    graph.capture([&] { graph_y = muls_adds_relu(xt); });
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < R * C; ++i) host[i] = static_cast<float>((i * 7 + round * 5) % 11) - 4.5f;
      x.copy_(opsnn::Tensor::from_host(host.data(), {R, C}, ACL_FLOAT));
      graph.replay();
      std::vector<float> out(R * C);
      graph_y.to_host(out.data());
      bad += mismatches(host, out, R, C);
    }
    // a bad call throws opsnn::Error with the library's message
    try {
      opsnn::Tensor z = opsnn::Tensor::empty({5}, ACL_FLOAT);
      z.copy_(x);
      std::fprintf(stderr, "FAILED: copying [3, 4] into [5] did not fail\n");
      return 1;
    } catch (const opsnn::Error &e) {
      std::printf("expected error %d: %s\n", e.code(), e.what());
    }
    const opsnn::CallStats s = opsnn::call_stats();
    std::printf("framework_tensor: %s, %llu calls, %llu executor-cache hits, %llu kept executors, graph arena %llu bytes\n",
                bad ? "MISMATCH" : "all results match", static_cast<unsigned long long>(s.calls),
                static_cast<unsigned long long>(s.cache_hits), static_cast<unsigned long long>(s.cache_entries),
                static_cast<unsigned long long>(graph.memory_report().planned_bytes));
    return bad || s.cache_hits < 6 ? 1 : 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
}
