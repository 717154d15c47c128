// Helpers of the run-time dispatched kernel tests: forcing an instruction set, and the ones this
// CPU runs. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/simd/softmax_kernel.hpp"

namespace simd_test {

/// Restores the detected instruction set when a test that forced another ends.
struct ForcedIsa {
    explicit ForcedIsa(attn::simd::Isa isa) : before(attn::simd::force_isa(isa)) {}
    ~ForcedIsa() { attn::simd::force_isa(before); }
    ForcedIsa(const ForcedIsa&) = delete;
    ForcedIsa& operator=(const ForcedIsa&) = delete;
    attn::simd::Isa before;
};

/// Every instruction set this CPU runs (the baseline always).
inline std::vector<attn::simd::Isa> runnable() {
    std::vector<attn::simd::Isa> out;
    for (attn::simd::Isa isa :
         {attn::simd::Isa::Baseline, attn::simd::Isa::Avx2, attn::simd::Isa::Avx512})
        if (attn::simd::isa_supported(isa)) out.push_back(isa);
    return out;
}

}  // namespace simd_test
