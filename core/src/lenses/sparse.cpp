// AttnScope core — sparse attention patterns. GPL-3.0-or-later.
#include "attn/lenses/sparse.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "attn/lenses/common.hpp"
#include "attn/lenses/reference.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

BoolMatrix bigbird_mask(Index n, Index window, const std::vector<Index>& globals, Index random_keys,
                        std::uint64_t seed) {
    if (n < 1 || window < 0 || random_keys < 0)
        throw ArgumentError("bigbird_mask needs n ≥ 1, window ≥ 0, random keys ≥ 0.");
    BoolMatrix m = BoolMatrix::Constant(n, n, false);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
            m(i, j) = std::abs(i - j) <= window;
    for (Index g : globals) {
        if (g < 0 || g >= n) continue;  // globals past a short sequence are ignored
        m.row(g).setConstant(true);
        m.col(g).setConstant(true);
    }
    Rng rng(seed);
    for (Index i = 0; i < n; ++i)
        for (Index r = 0; r < random_keys; ++r)
            m(i, static_cast<Index>(rng.uniform() * static_cast<double>(n)) % n) = true;
    return m;
}

std::vector<SparseResult> compare_sparse(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                                         const SparseConfig& c) {
    const Index n = Q.rows();
    if (K.rows() != n || V.rows() != n)
        throw ShapeError("compare_sparse: self-attention needs nq = nk.");
    const MatrixD exact = exact_attention(Q, K, V);
    std::vector<SparseResult> out;
    auto add = [&](std::string name, BoolMatrix mask) {
        SparseResult r;
        r.name = std::move(name);
        r.density = static_cast<double>(mask.count()) / static_cast<double>(n * n);
        r.weights = exact_weights(Q, K, &mask);
        r.error = relative_error(r.weights * V, exact);
        r.value_error = (r.weights * V - exact).norm() / std::max(1e-300, V.norm());
        r.mask = std::move(mask);
        out.push_back(std::move(r));
    };
    add("window", bigbird_mask(n, c.window, {}, 0, c.seed));
    add("global+window", bigbird_mask(n, c.window, c.globals, 0, c.seed));
    add("bigbird", bigbird_mask(n, c.window, c.globals, c.random_keys, c.seed));
    return out;
}

}  // namespace attn::lenses

namespace attn::lenses {

QkvSample local_qkv(Index n, Index d, double locality, double content, std::uint64_t seed) {
    if (n < 1 || d < 4 || locality < 0 || content < 0)
        throw ArgumentError("local_qkv needs n ≥ 1, d ≥ 4 and non-negative scales.");
    Rng rng(seed);
    const Index dc = d / 2, dp = (d - dc) / 2 * 2;  // positional part: cos/sin pairs
    QkvSample s;
    s.Q = MatrixD::Zero(n, d);
    s.K = MatrixD::Zero(n, d);
    s.Q.leftCols(dc) = rng.normal_matrix(n, dc, content).cast<double>();
    s.K.leftCols(dc) = rng.normal_matrix(n, dc, content).cast<double>();
    const Index pairs = dp / 2;
    // q_pos·k_pos = c² Σ_f cos(ω_f (i − j)); c² = locality·√d / pairs gives the stated mean.
    const double c = pairs > 0 ? std::sqrt(locality * std::sqrt(double(d)) / double(pairs)) : 0.0;
    for (Index i = 0; i < n; ++i)
        for (Index f = 0; f < pairs; ++f) {
            // Wavelengths from 4 to ~n tokens: a bump of width ~2 around the diagonal.
            const double omega = 2 * M_PI /
                                 (4.0 * std::pow(std::max(2.0, double(n) / 4),
                                                 double(f) / std::max<Index>(1, pairs - 1)));
            s.Q(i, dc + 2 * f) = s.K(i, dc + 2 * f) = c * std::cos(omega * double(i));
            s.Q(i, dc + 2 * f + 1) = s.K(i, dc + 2 * f + 1) = c * std::sin(omega * double(i));
        }
    s.V = rng.normal_matrix(n, d).cast<double>();
    return s;
}

}  // namespace attn::lenses
