// Tests of the streamed pass's run-time dispatched dot kernel (attn::simd::dot_rows): every
// instruction set this CPU runs, forced in turn, against a double-precision reference, the row
// maxima exactly the rows' largest scores, the fused-multiply-add kernels bit-identical to each
// other, the RBF score's squared distances, and a whole streamed scene against the float64
// reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "../float_reference.hpp"
#include "../scene_streamed_util.hpp"
#include "../simd_test_util.hpp"
#include "attn/scene/scene.hpp"
#include "attn/simd/dot_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
namespace simd = attn::simd;

using simd_test::ForcedIsa;
using simd_test::runnable;

/// K (nk × width, row-major) in blocks of `lanes` keys, as the streamed pass packs them.
std::vector<float> pack(const std::vector<float>& K, Index nk, Index width, Index lanes) {
    const Index blocks = (nk + lanes - 1) / lanes;
    std::vector<float> packed(std::size_t(blocks * width * lanes), 0.f);
    for (Index b = 0; b < blocks; ++b)
        for (Index l = 0; l < lanes && b * lanes + l < nk; ++l)
            for (Index d = 0; d < width; ++d)
                packed[std::size_t(b * width * lanes + d * lanes + l)] =
                    K[std::size_t((b * lanes + l) * width + d)];
    return packed;
}

/// Scores of `rows` queries against nk keys through the active kernel.
std::vector<float> scores(int rows, const std::vector<float>& q, const std::vector<float>& K,
                          Index nk, Index width, float c, std::vector<float>* maxima,
                          simd::Pair pair = simd::Pair::Dot) {
    const Index lanes = simd::dot_lanes();
    const std::vector<float> packed = pack(K, nk, width, lanes);
    std::vector<float> out(std::size_t(rows * nk), std::nanf(""));
    maxima->assign(std::size_t(rows), std::nanf(""));
    simd::dot_rows(rows, lanes, q.data(), width, packed.data(), width * lanes, nk, c, out.data(),
                   maxima->data(), pair);
    return out;
}

TEST(DotKernel, EveryInstructionSetAgainstADoubleReference) {
    attn::Rng rng(11);
    std::vector<std::vector<float>> fused;  // results of the kernels with fused multiply-adds
    for (const simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        const Index lanes = simd::dot_lanes();
        EXPECT_EQ(lanes, isa == simd::Isa::Avx512 ? 16
                         : isa == simd::Isa::Avx2 ? 8
                                                  : 4)
            << simd::isa_name(isa);
        std::vector<float> all;
        for (const Index width : {Index(1), Index(13), Index(64)})
            for (const Index nk : {Index(1), Index(7), Index(37), Index(64)})
                for (const int rows : {8, 3, 1}) {
                    attn::Rng data(Index(width * 1000 + nk * 10 + rows));
                    std::vector<float> q(std::size_t(rows * width)), K(std::size_t(nk * width));
                    for (float& v : q)
                        v = float(data.normal());
                    for (float& v : K)
                        v = float(data.normal());
                    const float c = 0.125f;
                    std::vector<float> maxima;
                    const std::vector<float> out = scores(rows, q, K, nk, width, c, &maxima);
                    for (int r = 0; r < rows; ++r) {
                        float top = -std::numeric_limits<float>::infinity();
                        for (Index j = 0; j < nk; ++j) {
                            double ref = 0, bound = 0;
                            for (Index d = 0; d < width; ++d) {
                                const double p = double(q[std::size_t(r * width + d)]) *
                                                 K[std::size_t(j * width + d)];
                                ref += p, bound += std::abs(p);
                            }
                            const float got = out[std::size_t(r * nk + j)];
                            EXPECT_NEAR(got, c * ref, 1e-6 * c * bound + 1e-7)
                                << simd::isa_name(isa) << " width " << width << " nk " << nk
                                << " row " << r << " key " << j;
                            top = std::max(top, got);
                        }
                        EXPECT_EQ(maxima[std::size_t(r)], top) << simd::isa_name(isa);
                    }
                    all.insert(all.end(), out.begin(), out.end());
                }
        if (isa != simd::Isa::Baseline && lanes > 4) fused.push_back(all);
    }
    // AVX2 and AVX-512 both fuse in d order, then scale once: the same bits.
    for (std::size_t k = 1; k < fused.size(); ++k)
        EXPECT_EQ(fused[k], fused[0]);
}

TEST(DotKernel, SquaredDistancesOnEveryInstructionSetAgainstADoubleReference) {
    // Vectors far from the origin and close to each other: ‖q‖² ≈ 64 · 10⁴ against
    // ‖q − k‖² ≈ 128, where ‖q‖² + ‖k‖² − 2 q·k would be off by ε · 10⁶. Summed term by term,
    // each distance is within a few ε of itself (its terms are all positive).
    for (const simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        for (const Index width : {Index(1), Index(13), Index(64)})
            for (const Index nk : {Index(1), Index(37), Index(64)})
                for (const int rows : {8, 3}) {
                    attn::Rng data(Index(width * 1000 + nk * 10 + rows));
                    std::vector<float> q(std::size_t(rows * width)), K(std::size_t(nk * width));
                    for (float& v : q)
                        v = float(100 + data.normal());
                    for (float& v : K)
                        v = float(100 + data.normal());
                    const float c = -0.03125f;  // −1/(2σ²), σ = 4
                    std::vector<float> maxima;
                    const std::vector<float> out =
                        scores(rows, q, K, nk, width, c, &maxima, simd::Pair::SquaredDistance);
                    for (int r = 0; r < rows; ++r) {
                        float top = -std::numeric_limits<float>::infinity();
                        for (Index j = 0; j < nk; ++j) {
                            double d2 = 0;
                            for (Index d = 0; d < width; ++d) {
                                const double t = double(q[std::size_t(r * width + d)]) -
                                                 K[std::size_t(j * width + d)];
                                d2 += t * t;
                            }
                            const double ref = c * d2;
                            const float got = out[std::size_t(r * nk + j)];
                            EXPECT_NEAR(got, ref, 8 * FLT_EPSILON * std::abs(ref))
                                << simd::isa_name(isa) << " width " << width << " nk " << nk
                                << " row " << r << " key " << j;
                            top = std::max(top, got);
                        }
                        EXPECT_EQ(maxima[std::size_t(r)], top) << simd::isa_name(isa);
                    }
                }
    }
}

TEST(DotKernel, RefusesKeysPackedForAnotherWidth) {
    std::vector<float> q(8, 1.f), packed(64, 1.f), out(8), maxima(1);
    EXPECT_THROW(
        simd::dot_rows(1, 5, q.data(), 8, packed.data(), 40, 8, 1.f, out.data(), maxima.data()),
        attn::ArgumentError);
}

TEST(DotKernel, StreamedScenesMatchTheReferenceOnEveryInstructionSet) {
    // Every instruction set's streamed scene against the float64 reference (float_reference.hpp)
    // within float32 bounds, and against the full path within twice those.
    attn::Rng rng(5);
    attn::SceneSpec spec;
    spec.text = streamed_test::words(150, rng);
    spec.heads = 4;
    spec.d_model = 64;
    spec.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult full = attn::compute_scene(spec, nullptr, attn::Storage::Stages);
    std::vector<std::vector<fref::Row>> want;
    for (Index h = 0; h < 4; ++h)
        want.push_back(fref::scene_rows(full, spec, h));
    for (const simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        const attn::SceneResult st = attn::compute_scene(spec, nullptr, attn::Storage::Streamed);
        ASSERT_EQ(st.storage, attn::Storage::Streamed);
        for (Index h = 0; h < 4; ++h) {
            const auto u = std::size_t(h);
            const std::string at = std::string(simd::isa_name(isa)) + " head " + std::to_string(h);
            fref::expect_head_stats(st.stats[u], want[u], at);
            for (const Index i : {Index(0), Index(77), Index(149)}) {
                const Eigen::RowVectorXf w = st.weights_row(h, i);
                const fref::Row& r = want[u][std::size_t(i)];
                fref::expect_weights(w.data(), r, at + " row " + std::to_string(i));
                for (Index j = 0; j < w.size(); ++j)
                    EXPECT_LE(std::abs(double(w(j)) - full.heads[u].weights(i, j)),
                              2 * r.w_bound[std::size_t(j)])
                        << at << " row " << i << " key " << j;
            }
            fref::expect_grid(st.weights_blocks(h, 0, 150, 0, 150, 40, 40, attn::Aggregation::Max),
                              want[u], attn::Aggregation::Max, at);
        }
    }
}

}  // namespace
