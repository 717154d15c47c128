// Test helpers: half-precision tensors written into a safetensors file, from random bit
// patterns whose values the tests compute from the fields themselves. GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "attn/util/types.hpp"

namespace half_file {

/// One tensor: its dtype ("BF16", "F16"), shape and stored bit patterns.
struct Raw {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::uint16_t> bits;
};

/// Random normal half-precision bit patterns: sign, an exponent near 1, a random mantissa.
inline std::vector<std::uint16_t> random_bits(std::mt19937& rng, attn::Index n, bool bf16) {
    std::vector<std::uint16_t> v(static_cast<std::size_t>(n));
    for (auto& b : v) {
        const unsigned sign = rng() & 1u;
        if (bf16)
            b = std::uint16_t(sign << 15 | (120u + rng() % 10u) << 7 | (rng() & 0x7fu));
        else
            b = std::uint16_t(sign << 15 | (10u + rng() % 10u) << 10 | (rng() & 0x3ffu));
    }
    return v;
}

/// The value of a half-precision pattern from its fields (not the library's conversion).
inline double value_of(std::uint16_t b, bool bf16) {
    const double sign = (b >> 15) ? -1.0 : 1.0;
    if (bf16) return sign * std::ldexp(1.0 + double(b & 0x7f) / 128.0, int((b >> 7) & 0xff) - 127);
    return sign * std::ldexp(1.0 + double(b & 0x3ff) / 1024.0, int((b >> 10) & 0x1f) - 15);
}

/// Writes NAME → tensor into the safetensors file PATH.
inline void write_file(const std::string& path, const std::map<std::string, Raw>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::size_t at = 0;
    for (const auto& [name, t] : tensors) {
        header[name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + 2 * t.bits.size()}}};
        at += 2 * t.bits.size();
    }
    std::string h = header.dump();
    h.resize((h.size() + 7) / 8 * 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), std::streamsize(h.size()));
    for (const auto& [name, t] : tensors)
        out.write(reinterpret_cast<const char*>(t.bits.data()), std::streamsize(2 * t.bits.size()));
}

}  // namespace half_file
