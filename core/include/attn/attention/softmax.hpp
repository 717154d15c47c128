// AttnScope core — numerically stable row softmax. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// Row-wise softmax with max subtraction. −inf entries get weight exactly 0; a row with +inf
/// entries splits its weight equally among them; a row that is entirely −inf (all keys masked)
/// becomes all zeros and is flagged in empty_rows (if given). NaN throws NonFiniteError.
Matrix softmax_rows(const Matrix& logits, std::vector<std::uint8_t>* empty_rows = nullptr);
/// Double-precision overload with identical semantics.
MatrixD softmax_rows(const MatrixD& logits, std::vector<std::uint8_t>* empty_rows = nullptr);

/// Hard (τ → 0) limit: weight split equally among each row's maximal finite-or-+inf entries.
Matrix hardmax_rows(const Matrix& logits, std::vector<std::uint8_t>* empty_rows = nullptr);

}  // namespace attn
