// AttnScope core — erasure curves and Kendall's τ-b. GPL-3.0-or-later.
#include "attn/attribution/faithfulness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/models/run.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib {

namespace {

/// Zeroes rows of the residual stream entering layer 0.
class ZeroInputRows : public model::Hooks {
  public:
    explicit ZeroInputRows(std::vector<Index> rows) : rows_(std::move(rows)) {}
    void resid_pre(int layer, Index first, Matrix& x) override {
        if (layer != 0) return;
        for (const Index r : rows_)
            if (r >= first && r - first < x.rows()) x.row(r - first).setZero();
    }

  private:
    std::vector<Index> rows_;
};

}  // namespace

std::vector<Index> ranked_positions(Index n, Index position, bool causal) {
    std::vector<Index> out;
    for (Index p = 0; p < (causal ? position : n); ++p)
        if (p != position) out.push_back(p);
    return out;
}

std::vector<Index> rank_by_magnitude(const std::vector<Index>& positions,
                                     const std::vector<double>& scores) {
    std::vector<Index> order = positions;
    for (const Index p : order)
        if (p < 0 || std::size_t(p) >= scores.size())
            throw ArgumentError("position " + std::to_string(p) + " has no score");
    std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
        const double x = std::abs(scores[std::size_t(a)]), y = std::abs(scores[std::size_t(b)]);
        return x > y || (x == y && a < b);
    });
    return order;
}

std::vector<double> erasure_curve(const model::Model& model, const std::vector<std::int32_t>& ids,
                                  const model::RunControls& controls, Index position,
                                  std::int32_t target, const std::vector<Index>& order, int k_max,
                                  Progress* progress) {
    if (k_max < 0) throw ArgumentError("the number of erased tokens must not be negative");
    if (target < 0 || target >= model.info().vocab)
        throw ArgumentError("token id " + std::to_string(target) + " is outside the vocabulary");
    std::vector<double> curve;
    for (int k = 0; k <= k_max; ++k) {
        const std::size_t erased = std::min(std::size_t(k), order.size());
        ZeroInputRows hook(std::vector<Index>(order.begin(), order.begin() + Index(erased)));
        const model::Run r = model::run(model, ids, controls, &hook, nullptr, nullptr, position);
        curve.push_back(double(r.logits[target]));
        report(progress, double(k + 1) / double(k_max + 1));
    }
    return curve;
}

double kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        throw ShapeError("Kendall's tau: " + std::to_string(a.size()) + " against " +
                         std::to_string(b.size()) + " values");
    double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0, pairs = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = i + 1; j < a.size(); ++j) {
            const double da = a[i] - a[j], db = b[i] - b[j];
            pairs += 1;
            if (da == 0) ties_a += 1;
            if (db == 0) ties_b += 1;
            if (da == 0 || db == 0) continue;
            ((da > 0) == (db > 0) ? concordant : discordant) += 1;
        }
    const double denominator = std::sqrt((pairs - ties_a) * (pairs - ties_b));
    if (!(denominator > 0)) return std::numeric_limits<double>::quiet_NaN();
    return (concordant - discordant) / denominator;
}

}  // namespace attn::attrib
