// AttnScope core — run-time dispatched SIMD kernels of a row softmax (exp, max, sums).
// GPL-3.0-or-later.
#pragma once

#include "attn/util/types.hpp"

namespace attn::simd {

/// The instruction sets the kernels are compiled for; one is chosen at run time. Avx2 stands
/// for AVX2 with FMA (the dot kernel fuses its multiply-adds; every AVX2 CPU has both).
enum class Isa : int { Baseline = 0, Avx2 = 1, Avx512 = 2 };

/// The widest instruction set this CPU runs (and the OS saves the registers of), found once.
Isa detected_isa();
/// The instruction set the kernels use now: detected_isa() unless a test forced another.
Isa active_isa();
/// True when this CPU can run the kernels compiled for isa.
bool isa_supported(Isa isa);
/// Test hook: use isa from now on (it must be supported, else ArgumentError); returns the previous.
/// Not thread-safe against concurrent kernel calls; every ISA computes the same numbers anyway.
Isa force_isa(Isa isa);
/// "baseline (SSE2)", "AVX2 + FMA" or "AVX-512F", for reports.
const char* isa_name(Isa isa);

/// The largest of x[0..n) (−∞ when n is 0). NaN entries may or may not be ignored.
float row_max(const float* x, Index n);
/// y = exp(x − max), exactly 0 where x is −∞, returning Σ y in double (16 lanes, in a fixed
/// order). x and y may be the same array. NaN in x makes the sum NaN.
double exp_sum(const float* x, float* y, Index n, float max);
/// y = exp(x − max) · scale: a softmax row from its normalisers, the numbers exp_sum and scale
/// give. x and y may be the same array.
void exp_scale(const float* x, float* y, Index n, float max, float scale);
/// y *= f.
void scale(float* y, Index n, float f);
/// True when x[0..n) has no NaN and no ±∞ (for input checks: memory speed in any build).
bool all_finite(const float* x, Index n);
/// The sums of a softmax row's statistics pass (softmax_stats), before they become RowStats.
struct StatsSums {
    double count = 0, sum = 0,
           sumsq = 0;     ///< finite scores z: count, Σ (z − shift), Σ (z − shift)²
    double distance = 0;  ///< Σ w_j |j − query_pos|
    double az = 0;        ///< Σ w_j z_j over finite z_j
    float best = 0;       ///< max w_j (0 for an empty row)
};
/// One pass over w_j = e_j · inv_sum (a softmax row's last step; inv_sum 1 for weights as they
/// are) and its scores z: the sums of StatsSums (z null: no scores, their sums 0), w stored into
/// weights (may be e; null: not stored) and folded into col_max and col_sum (written instead
/// when fresh; both null: no columns). Sixteen float lanes flushed into doubles every 1024
/// entries: the same bits on every ISA.
StatsSums softmax_stats(const float* e, const float* z, Index n, Index query_pos, float inv_sum,
                        float shift, float* col_max, float* col_sum, bool fresh, float* weights);
/// y = exp(x) elementwise: within 1 ulp of the correctly rounded exp (tests/core: every 997th
/// float and the edges), +0 below about −103.97 (−∞ included), +∞ above 88.72, subnormal results
/// rounded once, NaN kept; the same bits on every ISA.
void exp(const float* x, float* y, Index n);

}  // namespace attn::simd
