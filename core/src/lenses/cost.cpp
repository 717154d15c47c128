// AttnScope core — the "cost" lens. GPL-3.0-or-later.
#include "attn/lenses/cost.hpp"

#include "attn/util/error.hpp"

namespace attn::lenses {
namespace {

struct Shape {
    double d, h, kv, dk;
};

Shape check(Index d_model, Index heads, Index kv_heads) {
    if (d_model < 1 || heads < 1 || d_model % heads != 0)
        throw ArgumentError("The head count must divide d_model (both ≥ 1).");
    const Index kv = kv_heads == 0 ? heads : kv_heads;
    if (kv < 1 || kv > heads || heads % kv != 0)
        throw ArgumentError("The kv-head count must divide the head count.");
    return {double(d_model), double(heads), double(kv), double(d_model / heads)};
}

}  // namespace

LayerFlops attention_flops(Index n, Index d_model, Index heads, Index kv_heads) {
    if (n < 0) throw ArgumentError("attention_flops: n must be ≥ 0.");
    const Shape s = check(d_model, heads, kv_heads);
    const double N = double(n);
    LayerFlops f;
    f.q_proj = 2 * N * s.d * s.d;
    f.kv_proj = 2 * (2 * N * s.d * (s.kv * s.dk));
    f.o_proj = 2 * N * s.d * s.d;
    f.scores = s.h * 2 * N * N * s.dk;
    f.mix = s.h * 2 * N * N * s.dk;
    f.softmax = 5 * s.h * N * N;
    return f;
}

double crossover_length(Index d_model, Index heads, Index kv_heads) {
    const Shape s = check(d_model, heads, kv_heads);
    // attention() = 4·n²·d; projections() = n·P with P the per-token projection FLOPs.
    const double per_token = 2 * s.d * s.d + 4 * s.d * s.kv * s.dk + 2 * s.d * s.d;
    return per_token / (4 * s.d);
}

std::uint64_t kv_cache_bytes(const KvCacheConfig& c) {
    const Shape s = check(c.d_model, c.heads, c.kv_heads);
    if (c.layers < 0 || c.n < 0 || c.bytes_per_value < 1 || c.batch < 1)
        throw ArgumentError("kv_cache_bytes: layers, n ≥ 0 and bytes per value, batch ≥ 1.");
    return 2ull * std::uint64_t(c.layers) * std::uint64_t(c.batch) * std::uint64_t(c.n) *
           std::uint64_t(s.kv) * std::uint64_t(s.dk) * std::uint64_t(c.bytes_per_value);
}

}  // namespace attn::lenses
