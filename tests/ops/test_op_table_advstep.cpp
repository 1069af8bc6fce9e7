// The test harness of the advance-step table (src/ops/serving/advance_step.ops), cases registered from the
// table by tools/gen_ops.py --tests (advstep_table_cases.inc). Exact integer checks against the update written
// here from vLLM's advance_step (V2: the speculative-decoding update of the table's comment, flat and 2-D
// per-token forms, accepted-token rows of every length, positions out of the block table at launch, every
// argument's errors):
//   - random numSeqs / numQueries / blockSize / block tables on contiguous and strided + offset views (entries
//     past numQueries and memory outside the views untouched);
//   - a seqLens entry outside the block table fails the launch with nothing written;
//   - the errors: each argument named (null, dtype, shape, attribute ranges, overlap).
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct AdvanceStepArgs {
  aclTensor *tokens = nullptr, *sampled = nullptr, *positions = nullptr, *seq_lens = nullptr, *slots = nullptr,
            *block_tables = nullptr, *spec_tokens = nullptr, *accepted = nullptr;  // the last two: V2's
  int64_t num_seqs = 0, num_queries = 0, block_size = 0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct AdvanceStepTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const AdvanceStepArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const AdvanceStepTableCase &c, std::ostream *os) { *os << c.name; }

#include "advstep_table_cases.inc"

const std::vector<AdvanceStepTableCase> &all_cases() {
  static const std::vector<AdvanceStepTableCase> c = harness::sampled(advstep_table_cases());
  return c;
}
// The cases of one form: V1 (aclnnAdvanceStep) or V2 (aclnnAdvanceStepV2, speculative decoding).
std::vector<AdvanceStepTableCase> cases_of(bool v2) {
  std::vector<AdvanceStepTableCase> v;
  for (const AdvanceStepTableCase &c : all_cases())
    if ((c.api == "aclnnAdvanceStepV2") == v2) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev vec(int64_t n, bool strided, aclDataType dt = ACL_INT64) {
  if (!strided) return std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt);
  return std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt, std::vector<int64_t>{2}, 3);
}

struct Problem {
  int64_t seqs = 0, queries = 0, block = 0, max_blocks = 0;
  Dev tokens, sampled, positions, seq_lens, slots, tables;
  AdvanceStepArgs args() const {
    return {*tokens, *sampled, *positions, *seq_lens, *slots, *tables, nullptr, nullptr, seqs, queries, block};
  }
};

Problem make_problem(std::mt19937_64 &g, bool strided) {
  Problem p;
  p.seqs = 1 + static_cast<int64_t>(g() % 9);
  p.queries = 1 + static_cast<int64_t>(g() % static_cast<uint64_t>(p.seqs));
  p.block = 1 + static_cast<int64_t>(g() % 16);
  p.max_blocks = 1 + static_cast<int64_t>(g() % 6);
  p.tokens = vec(p.seqs, strided);
  p.positions = vec(p.seqs, !strided);
  p.seq_lens = vec(p.seqs, strided);
  p.slots = vec(p.seqs, !strided);
  p.sampled = g() % 2 ? std::make_unique<DeviceTensor>(std::vector<int64_t>{p.queries, 1}, ACL_INT64)
                      : vec(p.queries, strided);
  p.tables = strided ? transposed_view({p.seqs, p.max_blocks}, ACL_INT64)
                     : std::make_unique<DeviceTensor>(std::vector<int64_t>{p.seqs, p.max_blocks}, ACL_INT64);
  for (DeviceTensor *t : {p.tokens.get(), p.positions.get(), p.slots.get(), p.sampled.get(), p.tables.get()})
    t->fill_random(0, 1000);
  p.seq_lens->fill_random(0, static_cast<double>(p.max_blocks * p.block - 1));  // the next position fits
  return p;
}

int run(const AdvanceStepTableCase &c, const AdvanceStepArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// The four written tensors (V1's Problem or V2's SpecProblem) hold the expected values, nothing outside their views.
template <class P>
void expect_written(const P &p, const std::vector<double> &tokens, const std::vector<double> &positions,
                    const std::vector<double> &lens, const std::vector<double> &slots) {
  EXPECT_EQ(p.tokens->values(), tokens) << "inputTokens";
  EXPECT_EQ(p.positions->values(), positions) << "inputPositions";
  EXPECT_EQ(p.seq_lens->values(), lens) << "seqLens";
  EXPECT_EQ(p.slots->values(), slots) << "slotMapping";
  for (DeviceTensor *t : {p.tokens.get(), p.positions.get(), p.seq_lens.get(), p.slots.get()})
    EXPECT_TRUE(t->untouched_outside_view());
}

class OpTableAdvanceStep : public ::testing::TestWithParam<AdvanceStepTableCase> {};

TEST_P(OpTableAdvanceStep, MatchesTheUpdateExactly) {
  reseed_for_current_test();
  const AdvanceStepTableCase &c = GetParam();
  auto &g = rng();
  for (int k = 0; k < 24; ++k) {
    Problem p = make_problem(g, k % 2 == 1);
    SCOPED_TRACE(::testing::Message() << "seqs " << p.seqs << " queries " << p.queries << " block " << p.block
                                      << " max blocks " << p.max_blocks << " strided " << k % 2);
    auto tokens = p.tokens->values(), positions = p.positions->values(), lens = p.seq_lens->values(),
         slots = p.slots->values();
    const auto sampled = p.sampled->values(), tables = p.tables->values();
    for (int64_t i = 0; i < p.queries; ++i) {
      const auto pos = static_cast<int64_t>(lens[i]);
      tokens[i] = sampled[i];
      lens[i] = static_cast<double>(pos + 1);
      positions[i] = static_cast<double>(pos);
      const auto blk = static_cast<int64_t>(tables[static_cast<size_t>(i * p.max_blocks + pos / p.block)]);
      slots[i] = static_cast<double>(blk * p.block + pos % p.block);
    }
    ASSERT_EQ(run(c, p.args()), 0) << aclGetRecentErrMsg();
    expect_written(p, tokens, positions, lens, slots);
  }
}

TEST_P(OpTableAdvanceStep, SeqLensOutsideTheBlockTableFailTheLaunch) {
  const AdvanceStepTableCase &c = GetParam();
  Problem p = make_problem(rng(), false);
  for (double bad : {static_cast<double>(p.max_blocks * p.block), -1.0}) {
    auto lens = p.seq_lens->values();
    lens[static_cast<size_t>(p.queries - 1)] = bad;
    p.seq_lens->set_values(lens);
    const auto tokens = p.tokens->values();
    EXPECT_EQ(run(c, p.args()), ACLNN_ERR_PARAM_INVALID) << bad;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("seqLens"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_EQ(p.seq_lens->values(), lens) << "nothing written";
    EXPECT_EQ(p.tokens->values(), tokens) << "nothing written";
  }
}

TEST_P(OpTableAdvanceStep, ErrorsNameTheArgument) {
  const AdvanceStepTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const Problem p = [] {  // fixed sizes: numSeqs 4, numQueries 3
    Problem q;
    q.seqs = 4;
    q.queries = 3;
    q.block = 8;
    q.max_blocks = 2;
    q.tokens = vec(4, false);
    q.positions = vec(4, false);
    q.seq_lens = vec(4, false);
    q.slots = vec(4, false);
    q.sampled = std::make_unique<DeviceTensor>(std::vector<int64_t>{3, 1}, ACL_INT64);
    q.tables = std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 2}, ACL_INT64);
    q.seq_lens->set_values({1, 2, 3, 4});
    return q;
  }();
  const AdvanceStepArgs good = p.args();
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *AdvanceStepArgs::*;
  const std::vector<std::pair<const char *, F>> tensors = {
      {"inputTokens", &AdvanceStepArgs::tokens},   {"sampledTokenIds", &AdvanceStepArgs::sampled},
      {"inputPositions", &AdvanceStepArgs::positions}, {"seqLens", &AdvanceStepArgs::seq_lens},
      {"slotMapping", &AdvanceStepArgs::slots},    {"blockTables", &AdvanceStepArgs::block_tables}};
  DeviceTensor i32({4}, ACL_INT32), five({5}, ACL_INT64), two_d({4, 1}, ACL_INT64);
  for (const auto &[name, f] : tensors) {
    AdvanceStepArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = i32;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"})) << name;
    a.*f = five;  // no tensor has 5 rows
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "shape"})) << name;
  }
  for (F f : {&AdvanceStepArgs::tokens, &AdvanceStepArgs::slots}) {  // [numSeqs, 1] is not [numSeqs]
    AdvanceStepArgs a = good;
    a.*f = two_d;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "shape"}));
  }
  const std::vector<std::pair<const char *, std::pair<int64_t AdvanceStepArgs::*, int64_t>>> attrs = {
      {"numSeqs", {&AdvanceStepArgs::num_seqs, 0}},   {"numQueries", {&AdvanceStepArgs::num_queries, 0}},
      {"numQueries", {&AdvanceStepArgs::num_queries, 5}}, {"blockSize", {&AdvanceStepArgs::block_size, 0}},
      {"blockSize", {&AdvanceStepArgs::block_size, -8}}};
  for (const auto &[name, fv] : attrs) {
    AdvanceStepArgs a = good;
    a.*(fv.first) = fv.second;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name << " " << fv.second;
  }
  {  // written tensors must not share memory
    AdvanceStepArgs a = good;
    a.positions = a.seq_lens;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlaps"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableAdvanceStep, ::testing::ValuesIn(cases_of(false)),
                         harness::case_name<AdvanceStepTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableAdvanceStep);

// AdvanceStepV2: N sequences of T = specNum + 1 tokens.
struct SpecProblem {
  int64_t seqs = 0, spec = 0, block = 0, max_blocks = 0;
  Dev tokens, sampled, positions, seq_lens, slots, tables, spec_tokens, accepted;
  AdvanceStepArgs args() const {
    return {*tokens, *sampled, *positions, *seq_lens, *slots, *tables, *spec_tokens, *accepted, seqs, seqs, block};
  }
};

// A per-token tensor: [N * T] (strided: every other element) or [N, T] (strided: transposed storage).
Dev per_token(int64_t n, int64_t t, bool flat, bool strided) {
  if (flat) return vec(n * t, strided);
  return strided ? transposed_view({n, t}, ACL_INT64) : std::make_unique<DeviceTensor>(std::vector<int64_t>{n, t}, ACL_INT64);
}

SpecProblem make_spec_problem(std::mt19937_64 &g, bool strided) {
  SpecProblem p;
  p.seqs = 1 + static_cast<int64_t>(g() % 7);
  p.spec = 1 + static_cast<int64_t>(g() % 4);
  p.block = 1 + static_cast<int64_t>(g() % 16);
  // Room for a position advanced by up to specNum + 1 in every table.
  p.max_blocks = (p.spec + 2 + p.block - 1) / p.block + static_cast<int64_t>(g() % 6);
  const int64_t n = p.seqs, t = p.spec + 1;
  p.tokens = per_token(n, t, g() % 2, strided);
  p.positions = per_token(n, t, g() % 2, !strided);
  p.seq_lens = per_token(n, t, g() % 2, strided);
  p.slots = per_token(n, t, g() % 2, !strided);
  p.sampled = strided ? transposed_view({n, t}, ACL_INT64) : std::make_unique<DeviceTensor>(std::vector<int64_t>{n, t}, ACL_INT64);
  p.spec_tokens = strided ? transposed_view({n, p.spec}, ACL_INT64)
                          : std::make_unique<DeviceTensor>(std::vector<int64_t>{n, p.spec}, ACL_INT64);
  p.accepted = vec(n, strided);
  p.tables = std::make_unique<DeviceTensor>(std::vector<int64_t>{n, p.max_blocks}, ACL_INT64);
  for (DeviceTensor *x : {p.tokens.get(), p.seq_lens.get(), p.slots.get(), p.spec_tokens.get(), p.tables.get()})
    x->fill_random(0, 1000);
  p.accepted->fill_random(0, static_cast<double>(p.spec));
  // Positions whose next one (+ acceptedNum + 1 <= + specNum + 1) stays inside the block table.
  p.positions->fill_random(0, std::max(0.0, static_cast<double>(p.max_blocks * p.block - 2 - p.spec)));
  std::vector<double> sv;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t m = static_cast<int64_t>(g() % static_cast<uint64_t>(t + 1));  // accepted tokens, then -1
    for (int64_t j = 0; j < t; ++j) sv.push_back(j < m ? static_cast<double>(1 + g() % 1000) : -1.0);
  }
  p.sampled->set_values(sv);
  return p;
}

class OpTableAdvanceStepV2 : public ::testing::TestWithParam<AdvanceStepTableCase> {};

TEST_P(OpTableAdvanceStepV2, MatchesTheSpeculativeUpdateExactly) {
  reseed_for_current_test();
  const AdvanceStepTableCase &c = GetParam();
  auto &g = rng();
  for (int k = 0; k < 24; ++k) {
    SpecProblem p = make_spec_problem(g, k % 2 == 1);
    const int64_t n = p.seqs, t = p.spec + 1;
    SCOPED_TRACE(::testing::Message() << "seqs " << n << " specNum " << p.spec << " block " << p.block << " max blocks "
                                      << p.max_blocks << " strided " << k % 2);
    // Every per-token tensor's values() are in (sequence, token) order whichever its form.
    auto tokens = p.tokens->values(), positions = p.positions->values(), lens = p.seq_lens->values(),
         slots = p.slots->values();
    const auto sampled = p.sampled->values(), tables = p.tables->values(), spec = p.spec_tokens->values(),
               accepted = p.accepted->values();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < t; ++j) {
        const size_t e = static_cast<size_t>(i * t + j);
        const auto pos = static_cast<int64_t>(positions[e] + accepted[static_cast<size_t>(i)] + 1);
        positions[e] = static_cast<double>(pos);
        lens[e] = static_cast<double>(pos + 1);
        const auto blk = static_cast<int64_t>(tables[static_cast<size_t>(i * p.max_blocks + pos / p.block)]);
        slots[e] = static_cast<double>(blk * p.block + pos % p.block);
      }
      int64_t m = 0;
      while (m < t && sampled[static_cast<size_t>(i * t + m)] != -1) ++m;
      tokens[static_cast<size_t>(i * t)] = m == 0 ? -1 : sampled[static_cast<size_t>(i * t + m - 1)];
      for (int64_t s = 0; s < p.spec; ++s) tokens[static_cast<size_t>(i * t + 1 + s)] = spec[static_cast<size_t>(i * p.spec + s)];
    }
    ASSERT_EQ(run(c, p.args()), 0) << aclGetRecentErrMsg();
    expect_written(p, tokens, positions, lens, slots);
  }
}

TEST_P(OpTableAdvanceStepV2, PositionsOutsideTheBlockTableFailTheLaunch) {
  const AdvanceStepTableCase &c = GetParam();
  SpecProblem p = make_spec_problem(rng(), false);
  const int64_t t = p.spec + 1;
  for (double bad : {static_cast<double>(p.max_blocks * p.block), -100.0, 9.2e18}) {
    auto pos = p.positions->values();
    pos[static_cast<size_t>((p.seqs - 1) * t + p.spec)] = bad;
    p.positions->set_values(pos);
    const auto tokens = p.tokens->values(), lens = p.seq_lens->values();
    EXPECT_TRUE(fails_with(run(c, p.args()), ACLNN_ERR_PARAM_INVALID, {"inputPositions"})) << bad;
    EXPECT_EQ(p.positions->values(), pos) << "nothing written";
    EXPECT_EQ(p.tokens->values(), tokens) << "nothing written";
    EXPECT_EQ(p.seq_lens->values(), lens) << "nothing written";
  }
}

TEST_P(OpTableAdvanceStepV2, ErrorsNameTheArgument) {
  const AdvanceStepTableCase &c = GetParam();
  const char *api = c.api.c_str();
  std::mt19937_64 g(7);
  SpecProblem p = make_spec_problem(g, false);
  while (p.seqs < 2 || p.spec < 2) p = make_spec_problem(g, false);
  const AdvanceStepArgs good = p.args();
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *AdvanceStepArgs::*;
  const std::vector<std::pair<const char *, F>> tensors = {
      {"inputTokens", &AdvanceStepArgs::tokens},       {"sampledTokenIds", &AdvanceStepArgs::sampled},
      {"inputPositions", &AdvanceStepArgs::positions}, {"seqLens", &AdvanceStepArgs::seq_lens},
      {"slotMapping", &AdvanceStepArgs::slots},        {"blockTables", &AdvanceStepArgs::block_tables},
      {"specToken", &AdvanceStepArgs::spec_tokens},    {"acceptedNum", &AdvanceStepArgs::accepted}};
  const int64_t n = p.seqs, t = p.spec + 1;
  DeviceTensor i32({n}, ACL_INT32), odd({n * t + 1}, ACL_INT64);
  for (const auto &[name, f] : tensors) {
    AdvanceStepArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = i32;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"})) << name;
    a.*f = odd;  // no tensor has n * T + 1 elements in one dim
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "shape"})) << name;
  }
  {  // sampledTokenIds [numSeqs, 1] (V1's form), specToken [numSeqs, 0], a per-token tensor [T, numSeqs]
    DeviceTensor s1({n, 1}, ACL_INT64), sp0({n, 0}, ACL_INT64), tr({t, n}, ACL_INT64);
    AdvanceStepArgs a = good;
    a.sampled = s1;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "sampledTokenIds"}));
    a = good;
    a.spec_tokens = sp0;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "specToken"}));
    a = good;
    a.seq_lens = tr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "seqLens"}));
  }
  const std::vector<std::pair<const char *, std::pair<int64_t AdvanceStepArgs::*, int64_t>>> attrs = {
      {"numSeqs", {&AdvanceStepArgs::num_seqs, 0}},
      {"numQueries", {&AdvanceStepArgs::num_queries, n - 1}},  // must equal numSeqs
      {"blockSize", {&AdvanceStepArgs::block_size, 0}}};
  for (const auto &[name, fv] : attrs) {
    AdvanceStepArgs a = good;
    a.*(fv.first) = fv.second;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
  }
  {  // written tensors must not share memory
    AdvanceStepArgs a = good;
    a.slots = a.seq_lens;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlaps"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableAdvanceStepV2, ::testing::ValuesIn(cases_of(true)),
                         harness::case_name<AdvanceStepTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableAdvanceStepV2);

}  // namespace
}  // namespace opsnn::test
