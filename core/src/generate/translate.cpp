// AttnScope core — greedy and beam search over an encoder–decoder. GPL-3.0-or-later.
#include "attn/generate/translate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "attn/util/error.hpp"

namespace attn::gen {
namespace {

/// A live hypothesis: its tokens, Σ log p, its decoder cache and the log-probabilities of
/// its next token; when the weights are kept, each fed position's decoder and cross rows
/// ([layer][head], one row each), so the winner's arrays need no second run.
struct Hypothesis {
    std::vector<std::int32_t> tokens;
    double sum = 0;
    model::DecoderCache cache;
    std::vector<double> next;
    std::vector<model::LayerWeights> self_rows, cross_rows;
};

/// Log-softmax of LOGITS' last row in double (the ranking should not hang on float rounding),
/// the BANNED tokens −∞ (transformers' bad_words_ids: never chosen).
std::vector<double> log_probabilities(Matrix logits, const std::vector<std::int32_t>& banned) {
    for (const std::int32_t t : banned)
        logits(logits.rows() - 1, t) = -std::numeric_limits<float>::infinity();
    const auto row = logits.row(logits.rows() - 1);
    const double top = double(row.maxCoeff());
    double sum = 0;
    for (Index i = 0; i < row.size(); ++i)
        sum += std::exp(double(row(i)) - top);
    const double log_sum = std::log(sum) + top;
    std::vector<double> out(std::size_t(row.size()));
    for (Index i = 0; i < row.size(); ++i)
        out[std::size_t(i)] = double(row(i)) - log_sum;
    return out;
}

double final_score(double sum, std::size_t length, double alpha) {
    return sum / std::pow(double(length), alpha);
}

/// Feeds TOKEN at H's next position (its rows kept when O asks for the weights); returns the
/// logits.
Matrix feed(const model::Seq2SeqModel& model, Hypothesis& h, std::int32_t token,
            const TranslateOptions& o) {
    model::LayerWeights self, cross;
    Matrix logits = model::decode(model, {token}, h.cache, o.controls, o.weights ? &self : nullptr,
                                  o.weights ? &cross : nullptr);
    if (o.weights) {
        h.self_rows.push_back(std::move(self));
        h.cross_rows.push_back(std::move(cross));
    }
    return logits;
}

/// H's rows stacked as teacher_forced's arrays: row i of a decoder head holds the weights over
/// positions 0 … i and zeros past them, as the causal mask leaves them.
void gather(const Hypothesis& h, model::Seq2SeqRun& run) {
    const std::size_t nt = h.self_rows.size(), layers = nt ? h.self_rows.front().size() : 0;
    run.decoder.assign(layers, {});
    run.cross.assign(layers, {});
    for (std::size_t l = 0; l < layers; ++l)
        for (std::size_t head = 0; head < h.self_rows.front()[l].size(); ++head) {
            const Index ns = h.cross_rows.front()[l][head].cols();
            Matrix self = Matrix::Zero(Index(nt), Index(nt)), cross(Index(nt), ns);
            for (std::size_t i = 0; i < nt; ++i) {
                const Matrix& row = h.self_rows[i][l][head];
                self.row(Index(i)).head(row.cols()) = row.row(0);
                cross.row(Index(i)) = h.cross_rows[i][l][head].row(0);
            }
            run.decoder[l].push_back(std::move(self));
            run.cross[l].push_back(std::move(cross));
        }
}

}  // namespace

Translation translate(const model::Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                      const TranslateOptions& o) {
    if (o.beam < 1) throw ArgumentError("--beam must be at least 1");
    if (o.max_tokens < 1) throw ArgumentError("--max-tokens must be at least 1");
    const model::Seq2SeqInfo& info = model.info();
    Translation result;
    const Matrix encoded =
        model::encode(model, source, o.controls, o.weights ? &result.run.encoder : nullptr);
    Hypothesis first;
    first.cache = model::start_decoder(model, encoded);
    first.next = log_probabilities(feed(model, first, info.decoder_start, o), info.banned);
    std::vector<Hypothesis> live;
    live.push_back(std::move(first));
    std::vector<Translation> finished;       // in the order found
    std::vector<Hypothesis> finished_state;  // with the weights: each one's cache and rows
    const std::size_t vocab = std::size_t(info.vocab);
    // A decoder of limited positions (Marian) stops where its last position is fed.
    const int limit =
        info.max_positions > 1 ? std::min(o.max_tokens, info.max_positions - 1) : o.max_tokens;
    for (int step = 0; step < limit && !live.empty(); ++step) {
        // Every extension (hypothesis, token) in order, ranked by Σ log p; a stable sort keeps
        // ties in that order (the earlier hypothesis, then the smaller id).
        std::vector<std::size_t> order(live.size() * vocab);
        std::iota(order.begin(), order.end(), std::size_t(0));
        const auto sum_of = [&](std::size_t c) {
            return live[c / vocab].sum + live[c / vocab].next[c % vocab];
        };
        const std::size_t keep = std::min(order.size(), std::size_t(o.beam) - finished.size());
        std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(keep), order.end(),
                          [&](std::size_t a, std::size_t b) {
                              const double sa = sum_of(a), sb = sum_of(b);
                              return sa > sb || (sa == sb && a < b);
                          });
        std::vector<Hypothesis> next;
        for (std::size_t r = 0; r < keep; ++r) {
            const std::size_t c = order[r];
            const Hypothesis& parent = live[c / vocab];
            const auto token = std::int32_t(c % vocab);
            std::vector<std::int32_t> tokens = parent.tokens;
            tokens.push_back(token);
            const double sum = sum_of(c);
            if (!std::isfinite(sum)) break;  // only banned tokens are left
            const auto state = [&] {
                Hypothesis h{std::move(tokens), sum, parent.cache, {}, {}, {}};
                if (o.weights) h.self_rows = parent.self_rows, h.cross_rows = parent.cross_rows;
                return h;
            };
            if (token == info.eos) {
                finished.push_back(
                    {tokens, final_score(sum, tokens.size(), o.length_penalty), true, {}});
                if (o.weights) finished_state.push_back(state());
                continue;
            }
            Hypothesis h = state();
            // The last step's live hypotheses need no next distribution.
            if (step + 1 < limit) h.next = log_probabilities(feed(model, h, token, o), info.banned);
            next.push_back(std::move(h));
        }
        live = std::move(next);
        if (finished.size() >= std::size_t(o.beam)) break;
    }
    std::vector<Translation> all = std::move(finished);
    for (const Hypothesis& h : live)
        all.push_back({h.tokens, final_score(h.sum, h.tokens.size(), o.length_penalty), false, {}});
    if (all.empty()) throw ArgumentError("the model bans every token (bad_words_ids)");
    std::size_t best = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
        if (all[i].score > all[best].score) best = i;
    model::Seq2SeqRun run = std::move(result.run);
    result = std::move(all[best]);
    if (!o.weights) return result;
    Hypothesis& h =
        best < finished_state.size() ? finished_state[best] : live[best - finished_state.size()];
    // The last token (</s>, or the one the limit left unfed) was never an input: feed it.
    if (h.self_rows.size() < h.tokens.size() + 1) feed(model, h, h.tokens.back(), o);
    run.source = source;
    run.target = {info.decoder_start};
    run.target.insert(run.target.end(), h.tokens.begin(), h.tokens.end());
    gather(h, run);
    result.run = std::move(run);
    return result;
}

}  // namespace attn::gen
