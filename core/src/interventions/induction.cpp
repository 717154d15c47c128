// AttnScope core — the induction test and the pattern search. GPL-3.0-or-later.
#include "attn/interventions/induction.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::interv {

InductionSequence induction_sequence(int vocab, Index half, std::uint64_t seed,
                                     std::optional<std::int32_t> bos) {
    if (half < 2) throw ArgumentError("the induction test needs at least 2 random tokens");
    if (vocab < 2) throw ArgumentError("the induction test needs a vocabulary of 2 or more");
    InductionSequence s;
    s.half = half;
    if (bos) s.ids.push_back(*bos);
    s.start = Index(s.ids.size());
    Rng rng(seed);
    for (Index i = 0; i < half; ++i)
        s.ids.push_back(std::int32_t(rng.next() % std::uint64_t(vocab)));
    for (Index i = 0; i < half; ++i)
        s.ids.push_back(s.ids[std::size_t(s.start + i)]);
    return s;
}

Matrix induction_scores(const model::Run& run, const InductionSequence& seq) {
    if (run.ids != seq.ids) throw ArgumentError("the run is not of the induction sequence");
    const Index layers = Index(run.layers.size());
    const Index heads = layers > 0 ? Index(run.layers[0].heads.size()) : 0;
    Matrix s = Matrix::Zero(layers, heads);
    for (Index l = 0; l < layers; ++l)
        for (Index h = 0; h < heads; ++h) {
            const Matrix& w = run.layers[std::size_t(l)].heads[std::size_t(h)].weights;
            double sum = 0;
            for (Index i = seq.start + seq.half; i < seq.start + 2 * seq.half; ++i)
                sum += w(i, i - seq.half + 1);
            s(l, h) = float(sum / double(seq.half));
        }
    return s;
}

std::vector<HeadMatch> rank_heads(const model::Model& model, const model::Run& run,
                                  const Matrix& pattern, const Matrix* allowed) {
    const Index n = Index(run.ids.size());
    const auto square = [&](const Matrix& m, const char* what) {
        if (m.rows() != n || m.cols() != n)
            throw ArgumentError(std::string(what) + " is " + std::to_string(m.rows()) + " × " +
                                std::to_string(m.cols()) + "; the run has " + std::to_string(n) +
                                " tokens, so it must be " + std::to_string(n) + " × " +
                                std::to_string(n));
    };
    square(pattern, "the pattern");
    Matrix cells(n, n);
    if (allowed) {
        square(*allowed, "the allowed cells");
        cells = *allowed;
    } else {
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                cells(i, j) = (!model.info().causal || j <= i) ? 1.f : 0.f;
    }
    const auto masked = [&](const Matrix& m) {
        return (m.array() * (cells.array() != 0.f).cast<float>()).matrix().cast<double>();
    };
    const MatrixD p = masked(pattern);
    const double pn = p.norm();
    if (!(pn > 0.0)) throw ArgumentError("the pattern is zero on every allowed cell");
    std::vector<HeadMatch> out;
    for (std::size_t l = 0; l < run.layers.size(); ++l)
        for (std::size_t h = 0; h < run.layers[l].heads.size(); ++h) {
            const MatrixD w = masked(run.layers[l].heads[h].weights);
            const double wn = w.norm();
            out.push_back(
                {int(l), int(h), wn > 0 ? (w.array() * p.array()).sum() / (wn * pn) : 0.0});
        }
    std::stable_sort(out.begin(), out.end(),
                     [](const HeadMatch& a, const HeadMatch& b) { return a.score > b.score; });
    return out;
}

}  // namespace attn::interv
