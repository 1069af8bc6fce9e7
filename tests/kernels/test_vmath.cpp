// vmath accuracy: sweeps float inputs over every exponent (about a million per function, plus
// dense sweeps of the interesting ranges) through the element-wise kernels the library
// dispatches to (AVX2/FMA here when available) and through the portable kernels, against <cmath>
// in double (erfinv: Newton in long double). Prints max ULP and max relative error per function.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/elementwise/ops.h"
#include "kernels/elementwise/vmath.h"
#include "float64_refs.h"
#include "test_util.h"

namespace opsnn::kernels {
ContigKernel ew_kernel_portable(EwOp op, core::ComputeType ct);
}

namespace opsnn::test {
namespace {

using kernels::EwOp;

using refs::erfinv_ref;

struct Fn {
  const char *name;
  EwOp op;
  double (*ref)(double);
  double max_ulp;  // bound asserted (the sweeps measure the actual figure)
};

const Fn kFns[] = {
    {"exp", EwOp::kExp, [](double x) { return std::exp(x); }, 2},
    {"exp2", EwOp::kExp2, [](double x) { return std::exp2(x); }, 2},
    {"expm1", EwOp::kExpm1, [](double x) { return std::expm1(x); }, 3},
    {"log", EwOp::kLog, [](double x) { return std::log(x); }, 2},
    {"log2", EwOp::kLog2, [](double x) { return std::log2(x); }, 3},
    {"log10", EwOp::kLog10, [](double x) { return std::log10(x); }, 3},
    {"log1p", EwOp::kLog1p, [](double x) { return std::log1p(x); }, 4},
    {"sin", EwOp::kSin, [](double x) { return std::sin(x); }, 2},
    {"cos", EwOp::kCos, [](double x) { return std::cos(x); }, 2},
    {"tan", EwOp::kTan, [](double x) { return std::tan(x); }, 4},
    {"asin", EwOp::kAsin, [](double x) { return std::asin(x); }, 4},
    {"acos", EwOp::kAcos, [](double x) { return std::acos(x); }, 3},
    {"atan", EwOp::kAtan, [](double x) { return std::atan(x); }, 4},
    {"sinh", EwOp::kSinh, [](double x) { return std::sinh(x); }, 3},
    {"cosh", EwOp::kCosh, [](double x) { return std::cosh(x); }, 3},
    {"tanh", EwOp::kTanh, [](double x) { return std::tanh(x); }, 4},
    {"asinh", EwOp::kAsinh, [](double x) { return std::asinh(x); }, 5},
    {"acosh", EwOp::kAcosh, [](double x) { return std::acosh(x); }, 5},
    {"atanh", EwOp::kAtanh, [](double x) { return std::atanh(x); }, 5},
    {"erf", EwOp::kErf, [](double x) { return std::erf(x); }, 4},
    {"erfc", EwOp::kErfc, [](double x) { return std::erfc(x); }, 6},
    {"erfinv", EwOp::kErfinv, erfinv_ref, 5},
    {"sqrt", EwOp::kSqrt, [](double x) { return std::sqrt(x); }, 0.5},
    {"rsqrt", EwOp::kRsqrt, [](double x) { return 1 / std::sqrt(x); }, 1.5},
};

double ulp_of(double ref) {
  const double a = std::fabs(ref);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

// Inputs: every 4099th bit pattern (all exponents, both signs, denormals, Inf, NaN) plus a dense
// uniform sweep of [-12, 12] and of (-1, 1).
// OPSNN_TEST_THIN=n keeps every n-th input of the sweeps (test_thin()); the special values stay.
int thin() { return test_thin(); }

std::vector<float> inputs() {
  std::vector<float> v;
  const int n = thin();
  for (uint64_t u = 0; u < (1ull << 32); u += 4099ull * n) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (int i = 0; i <= 400000; i += n) v.push_back(static_cast<float>(-12.0 + 24.0 * i / 400000));
  for (int i = 1; i < 200000; i += n) v.push_back(static_cast<float>(-1.0 + 2.0 * i / 200000));
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 3.4028235e38f, -3.4028235e38f}) v.push_back(s);
  return v;
}

struct Result {
  double max_ulp = 0, max_rel = 0, worst = 0;
  long special_mismatch = 0;
};

Result measure(const Fn &f, kernels::ContigKernel k, const std::vector<float> &in) {
  std::vector<float> out(in.size());
  const void *ins[1] = {in.data()};
  kernels::OpScalars s;
  // chunks of 512 like the engine (the exact path of sin/cos/tan is decided per chunk)
  for (size_t off = 0; off < in.size(); off += 512) {
    const int64_t n = static_cast<int64_t>(std::min<size_t>(512, in.size() - off));
    const void *p[1] = {in.data() + off};
    k(n, out.data() + off, p, s);
  }
  (void)ins;
  Result r;
  for (size_t i = 0; i < in.size(); ++i) {
    const double want = f.ref(static_cast<double>(in[i]));
    const double got = out[i];
    if (std::isnan(want) || std::isnan(got)) {
      r.special_mismatch += std::isnan(want) != std::isnan(got);
      continue;
    }
    if (std::isinf(want) || std::isinf(got) || std::fabs(want) > 3.4028235e38) {
      // results beyond FLT_MAX must overflow to Inf of the right sign
      const double wf = static_cast<double>(static_cast<float>(want));
      r.special_mismatch += got != wf;
      continue;
    }
    if (want == 0 && got == 0 && std::signbit(want) != std::signbit(got)) ++r.special_mismatch;
    const double u = std::fabs(got - want) / ulp_of(want);
    const double rel = std::fabs(got - want) / (std::fabs(want) + 1e-7);
    if (u > r.max_ulp) {
      r.max_ulp = u;
      r.worst = in[i];
    }
    r.max_rel = std::max(r.max_rel, rel);
  }
  return r;
}

TEST(Vmath, AccuracySweepsBothIsas) {
  const auto in = inputs();
  std::printf("%-7s %10s %10s %12s | %10s %10s   (%zu inputs each)\n", "fn", "best ULP", "best rel", "worst x",
              "port ULP", "port rel", in.size());
  for (const Fn &f : kFns) {
    const Result best = measure(f, kernels::ew_kernel(f.op, core::ComputeType::kFloat), in);
    const Result port = measure(f, kernels::ew_kernel_portable(f.op, core::ComputeType::kFloat), in);
    std::printf("%-7s %10.3f %10.3g %12.6g | %10.3f %10.3g\n", f.name, best.max_ulp, best.max_rel, best.worst,
                port.max_ulp, port.max_rel);
    EXPECT_EQ(best.special_mismatch, 0) << f.name;
    EXPECT_EQ(port.special_mismatch, 0) << f.name;
    EXPECT_LE(best.max_ulp, f.max_ulp) << f.name;
    EXPECT_LE(port.max_ulp, f.max_ulp) << f.name;
    // far inside precision.md's FLOAT bound (MARE < 10 * 2^-13)
    EXPECT_LT(best.max_rel, 1e-6) << f.name;
  }
}

// Functions without an op of their own here (sigmoid, atan2), called directly: this unit is built
// without ISA flags, so this is the portable code.
TEST(Vmath, SigmoidAndAtan2Direct) {
  const auto in = inputs();
  double max_ulp = 0, max_rel = 0;
  long bad = 0;
  for (float x : in) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
    const double got = kernels::vmath::sigmoid(x);
    if (std::isnan(want) || std::isnan(got)) {
      bad += std::isnan(want) != std::isnan(got);
      continue;
    }
    max_ulp = std::max(max_ulp, std::fabs(got - want) / ulp_of(want));
    max_rel = std::max(max_rel, std::fabs(got - want) / (std::fabs(want) + 1e-7));
  }
  std::printf("sigmoid %10.3f ULP %10.3g rel\n", max_ulp, max_rel);
  EXPECT_EQ(bad, 0);
  EXPECT_LE(max_ulp, 3);

  double a2 = 0;
  for (int i = 0; i < 1000000; i += thin()) {
    const float y = static_cast<float>(std::ldexp(std::sin(i * 1.7), (i % 60) - 30));
    const float x = static_cast<float>(std::ldexp(std::cos(i * 0.37), (i % 47) - 23));
    const double want = std::atan2(static_cast<double>(y), static_cast<double>(x));
    a2 = std::max(a2, std::fabs(kernels::vmath::atan2(y, x) - want) / ulp_of(want));
  }
  std::printf("atan2   %10.3f ULP\n", a2);
  EXPECT_LE(a2, 3);
  const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-40f};
  for (float y : sp)
    for (float x : sp) {
      const double want = std::atan2(static_cast<double>(y), static_cast<double>(x));
      const float got = kernels::vmath::atan2(y, x);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << y << " " << x;
      } else {
        EXPECT_LE(std::fabs(got - want), 2.5e-7 * std::fabs(want)) << y << " " << x;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << y << " " << x;
      }
    }
}

TEST(Vmath, ErfinvDouble) {
  // double kernels: libm or (erfinv) Newton steps; accurate to ~1e-15
  double worst = 0;
  const auto k = kernels::ew_kernel(EwOp::kErfinv, core::ComputeType::kDouble);
  std::vector<double> in, out;
  for (int i = -100000; i <= 100000; i += thin()) in.push_back(i / 100000.0 * (1 - 1e-12));
  for (double t : {1e-300, 1e-16, 1 - 1e-15, -(1 - 1e-16)}) in.push_back(t);
  out.resize(in.size());
  for (size_t off = 0; off < in.size(); off += 512) {
    const void *p[1] = {in.data() + off};
    k(static_cast<int64_t>(std::min<size_t>(512, in.size() - off)), out.data() + off, p, kernels::OpScalars{});
  }
  for (size_t i = 0; i < in.size(); ++i) {
    const double want = erfinv_ref(in[i]);
    if (want != 0) worst = std::max(worst, std::fabs(out[i] - want) / std::fabs(want));
  }
  std::printf("erfinv double: max rel %.3g\n", worst);
  EXPECT_LT(worst, 1e-15);
}

}  // namespace
}  // namespace opsnn::test
