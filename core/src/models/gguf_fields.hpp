// AttnScope core — a GGUF file's metadata fields as the families read them: positive counts and
// numbers, checked, every message naming the file and the key. GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <string>

#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"

namespace attn::model {

/// The positive integer at KEY (at most 2²⁴); FALLBACK when absent and FALLBACK > 0.
inline int gguf_positive(const model::GgufFile& f, const std::string& key, int fallback = 0) {
    const bool present = f.metadata().count(key) != 0;
    if (!present && fallback > 0) return fallback;
    if (!present) throw FormatError(f.path() + ": metadata \"" + key + "\" is missing.");
    const std::uint64_t v = f.integer(key, 0);
    if (v == 0 || v > (1u << 24))
        throw FormatError(f.path() + ": metadata \"" + key + "\" is " + std::to_string(v) +
                          ", not a positive integer up to " + std::to_string(1u << 24) + ".");
    return int(v);
}

/// The positive finite number at KEY, or FALLBACK when absent (missing is refused when
/// FALLBACK is not positive).
inline double gguf_positive_number(const model::GgufFile& f, const std::string& key,
                                   double fallback) {
    if (fallback <= 0 && !f.metadata().count(key))
        throw FormatError(f.path() + ": metadata \"" + key + "\" is missing.");
    const double v = f.number(key, fallback);
    if (!(v > 0) || !std::isfinite(v))
        throw FormatError(f.path() + ": metadata \"" + key + "\" is " + std::to_string(v) +
                          ", not a positive number.");
    return v;
}

}  // namespace attn::model
