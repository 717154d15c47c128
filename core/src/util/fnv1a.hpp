// AttnScope core — the FNV-1a 64-bit hash (not installed). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string_view>

namespace attn::detail {

/// FNV-1a's 64-bit offset basis: the hash of nothing.
inline constexpr std::uint64_t kFnv1aBasis = 0xCBF29CE484222325ULL;

/// FNV-1a 64 of S, continuing from H (kFnv1aBasis to start): fast, stable across builds and
/// machines, not cryptographic.
inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = kFnv1aBasis) {
    for (const char ch : s) {
        h ^= static_cast<unsigned char>(ch);
        h *= 0x100000001B3ULL;
    }
    return h;
}

}  // namespace attn::detail
