// The test harness of the advance-step table (src/ops/serving/advance_step.ops), cases registered from the
// table by tools/gen_ops.py --tests (advstep_table_cases.inc). Exact integer checks against the update written
// here from vLLM's advance_step:
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
            *block_tables = nullptr;
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

using Dev = std::unique_ptr<DeviceTensor>;

Dev vec(int64_t n, bool strided, aclDataType dt = ACL_INT64) {
  if (!strided) return std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt);
  return std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt, std::vector<int64_t>{2}, 3);
}

struct Problem {
  int64_t seqs = 0, queries = 0, block = 0, max_blocks = 0;
  Dev tokens, sampled, positions, seq_lens, slots, tables;
  AdvanceStepArgs args() const {
    return {*tokens, *sampled, *positions, *seq_lens, *slots, *tables, seqs, queries, block};
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
    EXPECT_EQ(p.tokens->values(), tokens) << "inputTokens";
    EXPECT_EQ(p.positions->values(), positions) << "inputPositions";
    EXPECT_EQ(p.seq_lens->values(), lens) << "seqLens";
    EXPECT_EQ(p.slots->values(), slots) << "slotMapping";
    for (DeviceTensor *t : {p.tokens.get(), p.positions.get(), p.seq_lens.get(), p.slots.get()})
      EXPECT_TRUE(t->untouched_outside_view());
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

INSTANTIATE_TEST_SUITE_P(Tables, OpTableAdvanceStep, ::testing::ValuesIn(all_cases()),
                         harness::case_name<AdvanceStepTableCase>);

}  // namespace
}  // namespace opsnn::test
