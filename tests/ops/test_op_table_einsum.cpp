// The test harness of the einsum table (src/ops/matmul/einsum.ops), cases registered from the table by
// tools/gen_ops.py --tests (einsum_table_cases.inc). The float64 reference is a brute-force sum written here
// over every assignment of the letters, from an equation spelled out by hand (ellipsis dims as letters, implicit
// outputs written out), so it shares nothing with the op's parser:
//   - matmul, batched, transposed outputs, diagonals, traces, sums, outer products, three operands, ellipsis and
//     size-1 broadcasting, uppercase letters, empty sums; every dtype, contiguous and non-contiguous operands;
//   - the errors: malformed equations, operand count, ranks, sizes (naming operand and index), dtypes, nulls.
#include <algorithm>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "device_lists.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct EinsumArgs {
  aclTensorList *tensors = nullptr;
  const char *equation = nullptr;
  aclTensor *output = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct EinsumTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const EinsumArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const EinsumTableCase &c, std::ostream *os) { *os << c.name; }

#include "einsum_table_cases.inc"

const std::vector<EinsumTableCase> &all_cases() {
  static const std::vector<EinsumTableCase> c = harness::sampled(einsum_table_cases());
  return c;
}

struct Problem {
  const char *equation;                     // given to the op
  const char *spelled;                      // the reference's: letters only, explicit output
  std::vector<std::vector<int64_t>> shapes;  // operands
  std::vector<int64_t> out_shape;
};

const std::vector<Problem> &problems() {
  static const std::vector<Problem> p = {
      {"ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}, {3, 5}},
      {"bij,bjk->bik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, {2, 3, 5}},
      {"ij,jk", "ij,jk->ik", {{5, 2}, {2, 3}}, {5, 3}},
      {"ij,jk->ki", "ij,jk->ki", {{3, 6}, {6, 2}}, {2, 3}},
      {"ii->i", "ii->i", {{4, 4}}, {4}},
      {"ii", "ii->", {{5, 5}}, {}},
      {"ij->ji", "ij->ji", {{3, 7}}, {7, 3}},
      {"ijk->j", "ijk->j", {{3, 4, 5}}, {4}},
      {"i,j->ij", "i,j->ij", {{3}, {4}}, {3, 4}},
      {"i,i->", "i,i->", {{9}, {9}}, {}},
      {"...ij,...jk->...ik", "yzij,zjk->yzik", {{2, 3, 3, 4}, {3, 4, 2}}, {2, 3, 3, 2}},
      {"bn,anm,bm->ba", "bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}, {2, 4}},
      {"ij,ij->ij", "ij,ij->ij", {{3, 4}, {3, 4}}, {3, 4}},
      {"iij,jk->ik", "iij,jk->ik", {{3, 3, 4}, {4, 2}}, {3, 2}},
      {"bhqd,bhkd->bhqk", "bhqd,bhkd->bhqk", {{2, 2, 3, 4}, {2, 2, 5, 4}}, {2, 2, 3, 5}},
      {"i,j,k->ijk", "i,j,k->ijk", {{2}, {3}, {4}}, {2, 3, 4}},
      {"ij,i->j", "ij,i->j", {{3, 4}, {1}}, {4}},
      {"Ba,aC", "Ba,aC->BC", {{2, 3}, {3, 4}}, {2, 4}},
      {"ijk,ikl->jl", "ijk,ikl->jl", {{3, 2, 4}, {3, 4, 5}}, {2, 5}},
      {" ...i , ...i -> ... ", "zi,zi->z", {{3, 5}, {3, 5}}, {3}},
      {"ab,bc,cd->ad", "ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 5}}, {2, 5}},
      {"ijk,jl->ilk", "ijk,jl->ilk", {{2, 3, 4}, {3, 2}}, {2, 2, 4}},
      {"ij,jk->ik", "ij,jk->ik", {{3, 0}, {0, 4}}, {3, 4}},
      {"i,i->i", "i,i->i", {{0}, {0}}, {0}},
  };
  return p;
}

// The reference: value and the sum of the terms' magnitudes (the bound of meets_absolute_bound).
void reference(const Problem &p, const std::vector<std::vector<double>> &in, std::vector<double> *value,
               std::vector<double> *bound) {
  const std::string eq = p.spelled;
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms(1);
  for (char ch : eq.substr(0, arrow)) {
    if (ch == ',') terms.emplace_back();
    else terms.back().push_back(ch);
  }
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d) size[terms[i][d]] = std::max(size[terms[i][d]], p.shapes[i][d]);
  std::vector<char> letters;
  for (const auto &[l, s] : size) letters.push_back(l);
  int64_t total = 1;
  for (char l : letters) total *= size[l];
  int64_t out_n = 1;
  for (char l : out) out_n *= size[l];
  value->assign(static_cast<size_t>(out_n), 0.0);
  bound->assign(static_cast<size_t>(out_n), 0.0);
  std::map<char, int64_t> at;
  for (int64_t t = 0; t < total; ++t) {
    int64_t r = t;
    for (auto it = letters.rbegin(); it != letters.rend(); ++it) {
      at[*it] = r % size[*it];
      r /= size[*it];
    }
    double prod = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t lin = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) lin = lin * p.shapes[i][d] + (p.shapes[i][d] == 1 ? 0 : at[terms[i][d]]);
      prod *= in[i][static_cast<size_t>(lin)];
    }
    int64_t o = 0;
    for (char l : out) o = o * size[l] + at[l];
    (*value)[static_cast<size_t>(o)] += prod;
    (*bound)[static_cast<size_t>(o)] += std::abs(prod);
  }
}

using Dev = std::unique_ptr<DeviceTensor>;

// form 0: contiguous; 1: dims reversed in storage (transposed); 2: padded with an offset.
Dev make(const std::vector<int64_t> &shape, aclDataType dt, int form) {
  if (form == 1) return transposed_view(shape, dt);
  if (form == 2) return padded_view(shape, dt, 2);
  return std::make_unique<DeviceTensor>(shape, dt);
}

struct Built {
  std::vector<Dev> ins;
  std::shared_ptr<aclTensorList> list;
  Dev out;
};

Built build(const Problem &p, aclDataType dt, int form) {
  Built r;
  for (const auto &s : p.shapes) {
    r.ins.push_back(make(s, dt, form));
    r.ins.back()->fill_random(-1, 1);
  }
  r.list = list_of(r.ins);
  r.out = make(p.out_shape, dt, form == 0 ? 0 : 3 - form);
  r.out->poison();
  return r;
}

int run(const EinsumTableCase &c, const EinsumArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableEinsum : public ::testing::TestWithParam<EinsumTableCase> {};

TEST_P(OpTableEinsum, EveryEquationDtypeAndLayoutAgainstFloat64) {
  reseed_for_current_test();
  const EinsumTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (const Problem &p : problems())
      for (int form = 0; form < 3; ++form) {
        SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " \"" << p.equation << "\" form " << form);
        Built t = build(p, dt, form);
        std::vector<std::vector<double>> in;
        for (const Dev &d : t.ins) in.push_back(d->values());
        std::vector<double> value, bound;
        reference(p, in, &value, &bound);
        ASSERT_EQ(run(c, {t.list.get(), p.equation, t.out->get()}), 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(meets_absolute_bound(*t.out, value, bound));
        for (const Dev &d : t.ins) EXPECT_TRUE(d->untouched_outside_view());
      }
}

// Random equations: 1-3 operands over the letters a-f (repeats within an operand: diagonals), sizes 1-3 with some
// operand dims of size 1 (broadcast), an explicit output of a random subset in random order.
TEST_P(OpTableEinsum, RandomEquationsAgainstFloat64) {
  reseed_for_current_test();
  const EinsumTableCase &c = GetParam();
  auto &g = rng();
  for (int trial = 0; trial < 300; ++trial) {
    int64_t size[6];
    for (int64_t &v : size) v = 1 + static_cast<int64_t>(g() % 3);
    const int n = 1 + static_cast<int>(g() % 3);
    std::string eq;
    std::vector<std::vector<int64_t>> shapes;
    std::string used;
    for (int i = 0; i < n; ++i) {
      if (i) eq += ',';
      const int rank = static_cast<int>(g() % 4);
      shapes.emplace_back();
      for (int d = 0; d < rank; ++d) {
        const char l = static_cast<char>('a' + g() % 6);
        eq += l;
        if (used.find(l) == std::string::npos) used += l;
        shapes.back().push_back(g() % 5 == 0 && eq.find(l) == eq.size() - 1 ? 1 : size[l - 'a']);
      }
    }
    // A letter repeated in one operand needs one size there: use the letter's size for every occurrence.
    {
      size_t pos = 0;
      for (int i = 0; i < n; ++i) {
        const size_t end = eq.find(',', pos);
        const std::string term = eq.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        for (size_t d = 0; d < term.size(); ++d)
          if (term.find(term[d]) != d || term.find(term[d], d + 1) != std::string::npos)
            shapes[static_cast<size_t>(i)][d] = size[term[d] - 'a'];
        pos = end + 1;
      }
    }
    std::string out;
    for (char l : used)
      if (g() % 2) out += l;
    std::shuffle(out.begin(), out.end(), g);
    const std::string full = eq + "->" + out;
    // The output's sizes: the largest size of each letter among the operands (1 where every occurrence broadcasts).
    std::vector<int64_t> out_shape;
    for (char l : out) {
      int64_t m = 1;
      size_t pos = 0;
      for (int i = 0; i < n; ++i) {
        const size_t end = full.find_first_of(",-", pos);
        const std::string term = full.substr(pos, end - pos);
        for (size_t d = 0; d < term.size(); ++d)
          if (term[d] == l) m = std::max(m, shapes[static_cast<size_t>(i)][d]);
        pos = end + 1;
      }
      out_shape.push_back(m);
    }
    SCOPED_TRACE(::testing::Message() << c.name << " \"" << full << "\"");
    const Problem p{full.c_str(), full.c_str(), shapes, out_shape};
    Built t = build(p, ACL_FLOAT, static_cast<int>(g() % 3));
    std::vector<std::vector<double>> in;
    for (const Dev &d : t.ins) in.push_back(d->values());
    std::vector<double> value, bound;
    reference(p, in, &value, &bound);
    ASSERT_EQ(run(c, {t.list.get(), full.c_str(), t.out->get()}), 0) << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_absolute_bound(*t.out, value, bound));
  }
}

TEST_P(OpTableEinsum, ErrorsNameTheOperandAndIndex) {
  const EinsumTableCase &c = GetParam();
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  std::vector<Dev> two;
  two.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{3, 4}, ACL_FLOAT));
  two.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, ACL_FLOAT));
  auto list = list_of(two);
  DeviceTensor out({3, 5}, ACL_FLOAT);
  ASSERT_EQ(run(c, {list.get(), "ij,jk->ik", out}), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(c.phase1({nullptr, "ij,jk->ik", out}, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "tensors"}));
  EXPECT_TRUE(fails_with(c.phase1({list.get(), nullptr, out}, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "equation"}));
  EXPECT_TRUE(fails_with(c.phase1({list.get(), "ij,jk->ik", nullptr}, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "output"}));
  const std::vector<std::pair<const char *, std::vector<const char *>>> bad = {
      {"ij->ik", {"1 operand", "tensors has 2"}},
      {"ij,jk,kl->il", {"3 operand"}},
      {"ijk,jk->ik", {"operand 0", "3 subscript", "tensors[0]", "2 dim"}},
      {"ij,j->i", {"operand 1", "tensors[1]"}},
      {"ij,kk->ik", {"index k", "operand 1", "4 and 5"}},
      {"ij,ik->jk", {"index i", "operand 1", "size 4", "3"}},
      {"ij,jk->iz", {"output index z", "no operand"}},
      {"ij,jk->ii", {"output index i", "more than once"}},
      {"i1,jk->ik", {"operand 0", "'1'"}},
      {"i.j,jk->ik", {"operand 0", "\"...\""}},
      {"...i...,jk->ik", {"operand 0", "more than one"}},
      {"ij,jk->i->k", {"more than one \"->\""}},
      {"ij,jk->ki", {"output", "shape"}},
  };
  for (const auto &[eq, needles] : bad) {
    std::vector<const char *> all = {api};
    all.insert(all.end(), needles.begin(), needles.end());
    const int st = c.phase1({list.get(), eq, out}, &ws, &ex);
    EXPECT_EQ(st, ACLNN_ERR_PARAM_INVALID) << eq;
    const std::string msg = aclGetRecentErrMsg();
    for (const char *n : all) EXPECT_NE(msg.find(n), std::string::npos) << eq << ": " << msg << " lacks " << n;
  }
  {  // dtypes: an integer operand, operands of two dtypes, an output of another dtype
    std::vector<Dev> ints;
    ints.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{3, 4}, ACL_INT32));
    ints.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, ACL_INT32));
    auto il = list_of(ints);
    EXPECT_TRUE(fails_with(c.phase1({il.get(), "ij,jk->ik", out}, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                           {api, "tensors[0]", "dtype"}));
    std::vector<Dev> mixed;
    mixed.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{3, 4}, ACL_FLOAT));
    mixed.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, ACL_FLOAT16));
    auto ml = list_of(mixed);
    EXPECT_TRUE(fails_with(c.phase1({ml.get(), "ij,jk->ik", out}, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                           {api, "tensors[1]", "dtype"}));
    DeviceTensor half({3, 5}, ACL_FLOAT16);
    EXPECT_TRUE(fails_with(c.phase1({list.get(), "ij,jk->ik", half}, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                           {api, "output", "dtype"}));
  }
  {  // the output sharing memory with an operand; an empty list
    EXPECT_TRUE(fails_with(c.phase1({list.get(), "ij,jk->ij", *two[0]}, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                           {api, "output", "overlaps", "tensors[0]"}));
    std::vector<Dev> none;
    auto nl = list_of(none);
    EXPECT_TRUE(fails_with(c.phase1({nl.get(), "", out}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "tensors", "empty"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableEinsum, ::testing::ValuesIn(all_cases()), harness::case_name<EinsumTableCase>);

}  // namespace
}  // namespace opsnn::test
