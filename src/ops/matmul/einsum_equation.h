// The equation of aclnnEinsum (torch.einsum semantics), parsed in phase 1: which label each dim of
// each operand carries, the output's labels, and every label's size. Labels are ids: the letters in
// ASCII order ('A'..'Z' = 0..25, 'a'..'z' = 26..51, so the implicit output sorts uppercase first as
// torch does), then one id per broadcast dim of "..." (kEllipsisLabel + j, j counted over the widest
// ellipsis, operands with fewer ellipsis dims right-aligned). Errors are 161002 naming the operand
// and the index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opsnn::ops {

constexpr int kEllipsisLabel = 52;
constexpr int kMaxEinsumLabels = kEllipsisLabel + 8;

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // per operand, per dim: its label
  std::vector<int> output;               // the output's labels, in order
  std::vector<int64_t> size;             // per label id (kMaxEinsumLabels): its size; -1 unused
};

// The printable name of a label ("j", "...[1]").
std::string einsum_label_name(int label);

// Parses `equation` for operands of the given shapes. Spaces are ignored. Explicit output after "->"
// or implicit (the ellipsis dims, then every letter used exactly once, sorted). A label repeated in
// one operand takes the diagonal (its sizes must agree); across operands sizes must agree or be 1
// (broadcast), as must the ellipsis dims.
EinsumEquation parse_einsum(const char *equation, const std::vector<std::vector<int64_t>> &shapes);

}  // namespace opsnn::ops
