// AttnScope core — the statistics pass of a softmax row (simd::softmax_stats), included by
// softmax_kernel_body.hpp once per instruction set, inside its namespace (FV, kWidth, load and
// store declared). No include guard on purpose. GPL-3.0-or-later.
//
// Sixteen float lanes, lane l taking every 16th entry, each lane's partial sums flushed into the
// double totals in lane order after every block of 1024 entries: the order of the per-lane loops
// it replaced (stats.cpp), so every instruction set gives the same bits (no contraction: the
// file is compiled with -ffp-contract=off).

constexpr Index kStatLanes = 16, kStatBlock = 64 * kStatLanes, kStatVectors = kStatLanes / kWidth;
static_assert(kStatLanes % kWidth == 0);

/// Adds the 16 lanes of acc to total, lane by lane.
[[gnu::always_inline]] inline void flush_lanes(const FV (&acc)[kStatVectors], double& total) {
    for (Index v = 0; v < kStatVectors; ++v)
        for (Index l = 0; l < kWidth; ++l)
            total += static_cast<double>(acc[v][l]);
}

template <bool Columns, bool Store, bool Scores>
StatsSums softmax_stats_t(const float* e, const float* z, Index n, Index query_pos, float inv_sum,
                          float shift, float* col_max, float* col_sum, bool fresh, float* weights) {
    constexpr float kBig = std::numeric_limits<float>::max();
    FV offsets;  // 0, 1, …, kWidth − 1: each lane's distance from the vector's first entry
    for (Index l = 0; l < kWidth; ++l)
        offsets[l] = static_cast<float>(l);
    StatsSums out;
    FV top[kStatVectors];
    for (FV& t : top)
        t = FV{};
    Index j = 0;
    for (; j + kStatLanes <= n;) {
        FV c[kStatVectors], s[kStatVectors], q[kStatVectors], d[kStatVectors], p[kStatVectors];
        for (Index v = 0; v < kStatVectors; ++v)
            c[v] = s[v] = q[v] = d[v] = p[v] = FV{};
        const Index end = j + std::min(kStatBlock, (n - j) / kStatLanes * kStatLanes);
        for (; j < end; j += kStatLanes)
            for (Index v = 0; v < kStatVectors; ++v) {
                const Index at = j + v * kWidth;
                const FV w = load(e + at) * inv_sum;
                if constexpr (Store) store(weights + at, w);
                if constexpr (Columns) {
                    const FV cm = load(col_max + at), cs = load(col_sum + at);
                    store(col_max + at, fresh ? w : (cm > w ? cm : w));
                    store(col_sum + at, fresh ? w : cs + w);
                }
                top[v] = top[v] > w ? top[v] : w;
                const FV dist = static_cast<float>(at - query_pos) + offsets;
                d[v] = w * (dist < 0.f ? -dist : dist) + d[v];
                if constexpr (Scores) {
                    const FV x = load(z + at);
                    const auto finite = (x < 0.f ? -x : x) <= kBig;
                    p[v] = p[v] + (finite ? w * x : FV{});
                    const FV shifted = finite ? x - shift : FV{};
                    c[v] = c[v] + (finite ? FV{} + 1.f : FV{});
                    s[v] = s[v] + shifted;
                    q[v] = shifted * shifted + q[v];
                }
            }
        flush_lanes(c, out.count), flush_lanes(s, out.sum), flush_lanes(q, out.sumsq);
        flush_lanes(d, out.distance), flush_lanes(p, out.az);
    }
    float best = 0;
    for (Index v = 0; v < kStatVectors; ++v)
        for (Index l = 0; l < kWidth; ++l)
            best = best < top[v][l] ? top[v][l] : best;
    for (; j < n; ++j) {
        const float w = e[j] * inv_sum;
        if constexpr (Store) weights[j] = w;
        if constexpr (Columns) {
            col_max[j] = fresh ? w : (col_max[j] < w ? w : col_max[j]);
            col_sum[j] = fresh ? w : col_sum[j] + w;
        }
        best = best < w ? w : best;
        out.distance += static_cast<double>(w) *
                        static_cast<double>(j > query_pos ? j - query_pos : query_pos - j);
        if constexpr (!Scores) continue;
        if ((z[j] < 0.f ? -z[j] : z[j]) <= kBig) {
            out.az += static_cast<double>(w) * static_cast<double>(z[j]);
            const double x = static_cast<double>(z[j]) - static_cast<double>(shift);
            out.count += 1, out.sum += x, out.sumsq += x * x;
        }
    }
    out.best = best;
    return out;
}

/// The variant for the arguments given: columns, a weights store and scores each optional.
template <bool Columns, bool Store>
StatsSums softmax_stats_with(const float* e, const float* z, Index n, Index query_pos,
                             float inv_sum, float shift, float* col_max, float* col_sum, bool fresh,
                             float* weights) {
    return z ? softmax_stats_t<Columns, Store, true>(e, z, n, query_pos, inv_sum, shift, col_max,
                                                     col_sum, fresh, weights)
             : softmax_stats_t<Columns, Store, false>(e, z, n, query_pos, inv_sum, shift, col_max,
                                                      col_sum, fresh, weights);
}

StatsSums softmax_stats_impl(const float* e, const float* z, Index n, Index query_pos,
                             float inv_sum, float shift, float* col_max, float* col_sum, bool fresh,
                             float* weights) {
    if (col_max)
        return weights ? softmax_stats_with<true, true>(e, z, n, query_pos, inv_sum, shift, col_max,
                                                        col_sum, fresh, weights)
                       : softmax_stats_with<true, false>(e, z, n, query_pos, inv_sum, shift,
                                                         col_max, col_sum, fresh, weights);
    return weights ? softmax_stats_with<false, true>(e, z, n, query_pos, inv_sum, shift, col_max,
                                                     col_sum, fresh, weights)
                   : softmax_stats_with<false, false>(e, z, n, query_pos, inv_sum, shift, col_max,
                                                      col_sum, fresh, weights);
}
