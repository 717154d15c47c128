// AttnScope core — sparse attention patterns. GPL-3.0-or-later.
#include "attn/lenses/sparse.hpp"

#include <cstdlib>

#include "attn/error.hpp"
#include "attn/lenses/common.hpp"
#include "attn/lenses/reference.hpp"
#include "attn/random.hpp"

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
        r.mask = std::move(mask);
        out.push_back(std::move(r));
    };
    add("window", bigbird_mask(n, c.window, {}, 0, c.seed));
    add("global+window", bigbird_mask(n, c.window, c.globals, 0, c.seed));
    add("bigbird", bigbird_mask(n, c.window, c.globals, c.random_keys, c.seed));
    return out;
}

}  // namespace attn::lenses
