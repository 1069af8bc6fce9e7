#include "ops/matmul/einsum_equation.h"

#include <algorithm>

#include "aclnn/acl_meta.h"
#include "common/error.h"

namespace opsnn::ops {
namespace {

int letter_label(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return 26 + (ch - 'a');
  return -1;
}

// One term's subscripts: letters (as labels) and the position of "..." (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;  // index into letters before which the ellipsis dims go
};

Term parse_term(const std::string &s, const std::string &what) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '.') {
      if (s.compare(i, 3, "...") != 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "equation: %s has a '.' that is not part of \"...\"", what.c_str());
      if (t.ellipsis_at >= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "equation: %s has more than one \"...\"", what.c_str());
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    const int l = letter_label(ch);
    if (l < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "equation: %s has the character '%c'; subscripts are letters a-z, A-Z or \"...\"",
                  what.c_str(), ch);
    t.letters.push_back(l);
  }
  return t;
}

}  // namespace

std::string einsum_label_name(int label) {
  if (label < 26) return std::string(1, static_cast<char>('A' + label));
  if (label < kEllipsisLabel) return std::string(1, static_cast<char>('a' + label - 26));
  return "...[" + std::to_string(label - kEllipsisLabel) + "]";
}

EinsumEquation parse_einsum(const char *equation, const std::vector<std::vector<int64_t>> &shapes) {
  std::string eq;
  for (const char *p = equation; *p != '\0'; ++p)
    if (*p != ' ') eq.push_back(*p);
  const size_t arrow = eq.find("->");
  if (arrow != std::string::npos && eq.find("->", arrow + 2) != std::string::npos)
    throw_error(ACLNN_ERR_PARAM_INVALID, "equation \"%s\" has more than one \"->\"", equation);
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char ch : lhs) {
    if (ch == ',') terms.emplace_back();
    else terms.back().push_back(ch);
  }
  if (terms.size() != shapes.size())
    throw_error(ACLNN_ERR_PARAM_INVALID, "equation \"%s\" has %zu operand(s) but tensors has %zu", equation,
                terms.size(), shapes.size());
  EinsumEquation e;
  e.size.assign(kMaxEinsumLabels, -1);
  std::vector<Term> parsed;
  int ell_ndim = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string what = "operand " + std::to_string(i) + " (\"" + terms[i] + "\")";
    Term t = parse_term(terms[i], what);
    const int rank = static_cast<int>(shapes[i].size()), n = static_cast<int>(t.letters.size());
    if (t.ellipsis_at < 0 ? n != rank : n > rank)
      throw_error(ACLNN_ERR_PARAM_INVALID, "equation: %s has %d subscript(s) but tensors[%zu] has %d dim(s)",
                  what.c_str(), n, i, rank);
    if (t.ellipsis_at >= 0) ell_ndim = std::max(ell_ndim, rank - n);
    parsed.push_back(t);
  }
  if (ell_ndim > kMaxEinsumLabels - kEllipsisLabel)
    throw_error(ACLNN_ERR_PARAM_INVALID, "equation: \"...\" covers %d dims (at most 8)", ell_ndim);
  std::vector<int> count(kMaxEinsumLabels, 0);
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Term &t = parsed[i];
    const int rank = static_cast<int>(shapes[i].size());
    const int e_dims = t.ellipsis_at < 0 ? 0 : rank - static_cast<int>(t.letters.size());
    std::vector<int> dims;
    for (int j = 0; j < static_cast<int>(t.letters.size()); ++j) {
      if (j == t.ellipsis_at)
        for (int k = 0; k < e_dims; ++k) dims.push_back(kEllipsisLabel + ell_ndim - e_dims + k);
      dims.push_back(t.letters[static_cast<size_t>(j)]);
    }
    if (t.ellipsis_at == static_cast<int>(t.letters.size()))
      for (int k = 0; k < e_dims; ++k) dims.push_back(kEllipsisLabel + ell_ndim - e_dims + k);
    std::vector<int64_t> mine(kMaxEinsumLabels, -1);
    for (int d = 0; d < rank; ++d) {
      const int l = dims[static_cast<size_t>(d)];
      const int64_t n = shapes[i][static_cast<size_t>(d)];
      int64_t &m = mine[static_cast<size_t>(l)];
      if (m >= 0 && m != n)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "equation: index %s is repeated in operand %zu (tensors[%zu]) with sizes %lld and %lld (a diagonal "
                    "needs equal sizes)",
                    einsum_label_name(l).c_str(), i, i, static_cast<long long>(m), static_cast<long long>(n));
      if (m < 0) ++count[static_cast<size_t>(l)];
      m = n;
      int64_t &g = e.size[static_cast<size_t>(l)];
      if (g < 0 || g == 1) g = n;
      else if (n != 1 && n != g)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "equation: index %s has size %lld in operand %zu (tensors[%zu]) but %lld in an earlier operand; sizes "
                    "must agree or be 1",
                    einsum_label_name(l).c_str(), static_cast<long long>(n), i, i, static_cast<long long>(g));
    }
    e.inputs.push_back(dims);
  }
  if (arrow == std::string::npos) {
    for (int k = 0; k < ell_ndim; ++k) e.output.push_back(kEllipsisLabel + k);
    std::vector<int> occurrences(kEllipsisLabel, 0);
    for (const Term &t : parsed)
      for (int l : t.letters) ++occurrences[static_cast<size_t>(l)];
    for (int l = 0; l < kEllipsisLabel; ++l)
      if (occurrences[static_cast<size_t>(l)] == 1) e.output.push_back(l);
  } else {
    const Term out = parse_term(eq.substr(arrow + 2), "the output");
    std::vector<bool> seen(kEllipsisLabel, false);
    for (int j = 0; j <= static_cast<int>(out.letters.size()); ++j) {
      if (j == out.ellipsis_at) {
        for (int k = 0; k < ell_ndim; ++k) e.output.push_back(kEllipsisLabel + k);
      }
      if (j == static_cast<int>(out.letters.size())) break;
      const int l = out.letters[static_cast<size_t>(j)];
      if (seen[static_cast<size_t>(l)])
        throw_error(ACLNN_ERR_PARAM_INVALID, "equation: output index %s appears more than once",
                    einsum_label_name(l).c_str());
      seen[static_cast<size_t>(l)] = true;
      if (count[static_cast<size_t>(l)] == 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "equation: output index %s appears in no operand",
                    einsum_label_name(l).c_str());
      e.output.push_back(l);
    }
  }
  return e;
}

}  // namespace opsnn::ops
