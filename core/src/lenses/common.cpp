// AttnScope core — helpers shared by the theory lenses. GPL-3.0-or-later.
#include "attn/lenses/common.hpp"

#include <algorithm>
#include <cmath>

#include "attn/util/error.hpp"

namespace attn::lenses {

Histogram histogram(const std::vector<double>& values, int bins, double lo, double hi,
                    bool density) {
    if (bins < 1 || !(hi > lo)) throw ArgumentError("A histogram needs bins ≥ 1 and hi > lo.");
    Histogram h;
    h.lo = lo;
    h.width = (hi - lo) / bins;
    h.counts.assign(static_cast<std::size_t>(bins), 0.0);
    for (double v : values) {
        // Clamp in double first: casting a huge or NaN value to int would be undefined.
        const double pos = std::clamp((v - lo) / h.width, 0.0, double(bins - 1));
        const int b = std::isnan(pos) ? 0 : static_cast<int>(pos);
        h.counts[static_cast<std::size_t>(b)] += 1.0;
    }
    if (density && !values.empty()) {
        const double norm = 1.0 / (static_cast<double>(values.size()) * h.width);
        for (double& c : h.counts)
            c *= norm;
    }
    return h;
}

Moments moments(const std::vector<double>& values) {
    Moments m;
    if (values.empty()) return m;
    double sum = 0;
    for (double v : values)
        sum += v;
    m.mean = sum / static_cast<double>(values.size());
    double sq = 0;
    for (double v : values)
        sq += (v - m.mean) * (v - m.mean);
    m.variance = sq / static_cast<double>(values.size());
    return m;
}

VectorD softmax(const VectorD& scores) {
    if (scores.size() == 0) return scores;
    VectorD e = (scores.array() - scores.maxCoeff()).exp().matrix();
    return e / e.sum();
}

double entropy(const VectorD& p) {
    double h = 0;
    for (Index i = 0; i < p.size(); ++i)
        if (p(i) > 0) h -= p(i) * std::log(p(i));
    return h;
}

double relative_error(const MatrixD& approx, const MatrixD& exact) {
    if (approx.rows() != exact.rows() || approx.cols() != exact.cols())
        throw ShapeError("relative_error: the two matrices differ in shape.");
    const double diff = (approx - exact).norm();
    const double ref = exact.norm();
    return ref > 0 ? diff / ref : diff;
}

std::vector<Index> geometric_range(Index lo, Index hi, int count) {
    if (lo < 1 || hi < lo || count < 1)
        throw ArgumentError("geometric_range needs 1 ≤ lo ≤ hi and count ≥ 1.");
    std::vector<Index> out;
    for (int i = 0; i < count; ++i) {
        const double t = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
        const auto v = static_cast<Index>(
            std::llround(std::exp(std::log(double(lo)) * (1 - t) + std::log(double(hi)) * t)));
        if (out.empty() || v > out.back()) out.push_back(v);
    }
    if (out.back() != hi) out.push_back(hi);
    return out;
}

}  // namespace attn::lenses
