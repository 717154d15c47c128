// AttnScope core — what every patching computes of its clean and corrupted runs (internal).
// GPL-3.0-or-later.
#pragma once

#include <cmath>

#include "attn/util/error.hpp"
#include "attn/util/types.hpp"

namespace attn::interv {

/// The standard deviation of LOGITS (0 for fewer than two): the scale unstable_span compares
/// with.
inline double logit_spread(const Vector& logits) {
    if (logits.size() < 2) return 0;
    const Vector centred = logits.array() - logits.mean();
    return std::sqrt(double(centred.squaredNorm()) / double(centred.size()));
}

/// CLEAN − CORRUPT, the denominator of every restored fraction; throws ArgumentError when it is
/// 0 (nothing to restore).
inline double restorable_span(double clean, double corrupt) {
    const double span = clean - corrupt;
    if (span == 0.0)
        throw ArgumentError(
            "the logit difference of the two answers is the same in the clean "
            "and the corrupted run: patching has nothing to restore");
    return span;
}

}  // namespace attn::interv
