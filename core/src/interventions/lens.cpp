// AttnScope core — the logit lens. GPL-3.0-or-later.
#include "attn/interventions/lens.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attn/models/vocabulary.hpp"
#include "attn/util/error.hpp"

namespace attn::interv {

namespace {

void check_position(const model::Run& run, Index position) {
    const Index n = Index(run.ids.size());
    if (position < 0 || position >= n)
        throw ArgumentError("position " + std::to_string(position) + " is outside the run's " +
                            std::to_string(n) + " tokens");
}

}  // namespace

Matrix lens_logits(const model::Model& model, const model::Run& run,
                   std::optional<Index> position) {
    const Index at = position.value_or(run.logits_position);
    check_position(run, at);
    const Index rows = Index(run.inputs.size());
    if (rows != model.info().layers + 1)
        throw ArgumentError("the run holds " + std::to_string(rows) +
                            " residual streams, not the model's layers + 1");
    Matrix x(rows, model.info().d_model);
    for (Index l = 0; l < rows; ++l)
        x.row(l) = run.inputs[std::size_t(l)].row(at);
    return model.logits_rows(x);
}

LensCell top_tokens(const Vector& logits) {
    LensCell cell;
    const Index v = logits.size();
    if (v == 0) return cell;
    const double top = logits.maxCoeff();
    double sum = 0;
    for (Index i = 0; i < v; ++i)
        sum += std::exp(double(logits[i]) - top);
    std::vector<std::int32_t> order(static_cast<std::size_t>(v));
    std::iota(order.begin(), order.end(), 0);
    const auto k = std::ptrdiff_t(std::min<Index>(kLensTop, v));
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](std::int32_t a, std::int32_t b) {
                          return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                      });
    for (std::ptrdiff_t i = 0; i < k; ++i) {
        const std::int32_t id = order[std::size_t(i)];
        cell.ids[std::size_t(i)] = id;
        cell.probabilities[std::size_t(i)] = float(std::exp(double(logits[id]) - top) / sum);
    }
    return cell;
}

const LensCell& LensTable::at(Index row, Index position) const {
    if (row < 0 || row >= layers || position < 0 || position >= positions)
        throw ArgumentError("lens cell " + std::to_string(row) + "," + std::to_string(position) +
                            " is outside the table of " + std::to_string(layers) + " × " +
                            std::to_string(positions));
    return cells[std::size_t(row * positions + position)];
}

LensTable lens_table(const model::Model& model, const model::Run& run, Progress* progress) {
    LensTable t;
    t.layers = model.info().layers + 1;
    t.positions = Index(run.ids.size());
    t.cells.resize(std::size_t(t.layers * t.positions));
    report(progress, 0.0);
    for (Index p = 0; p < t.positions; ++p) {
        // Padding ids (past the tokenizer's vocabulary) are never among a cell's top tokens.
        const Matrix logits = model::without_padding(model.info(), lens_logits(model, run, p));
        for (Index l = 0; l < t.layers; ++l)
            t.cells[std::size_t(l * t.positions + p)] = top_tokens(logits.row(l).transpose());
        report(progress, double(p + 1) / double(t.positions));
    }
    return t;
}

}  // namespace attn::interv
