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
/// its next token.
struct Hypothesis {
    std::vector<std::int32_t> tokens;
    double sum = 0;
    model::DecoderCache cache;
    std::vector<double> next;
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

}  // namespace

Translation translate(const model::Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                      const TranslateOptions& o) {
    if (o.beam < 1) throw ArgumentError("--beam must be at least 1");
    if (o.max_tokens < 1) throw ArgumentError("--max-tokens must be at least 1");
    const model::Seq2SeqInfo& info = model.info();
    const Matrix encoded = model::encode(model, source, o.controls);
    Hypothesis first;
    first.cache = model::start_decoder(model, encoded);
    first.next = log_probabilities(
        model::decode(model, {info.decoder_start}, first.cache, o.controls), info.banned);
    std::vector<Hypothesis> live;
    live.push_back(std::move(first));
    std::vector<Translation> finished;  // in the order found
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
            if (token == info.eos) {
                finished.push_back(
                    {tokens, final_score(sum, tokens.size(), o.length_penalty), true});
                continue;
            }
            Hypothesis h{std::move(tokens), sum, parent.cache, {}};
            // The last step's live hypotheses need no next distribution.
            if (step + 1 < limit)
                h.next = log_probabilities(model::decode(model, {token}, h.cache, o.controls),
                                           info.banned);
            next.push_back(std::move(h));
        }
        live = std::move(next);
        if (finished.size() >= std::size_t(o.beam)) break;
    }
    std::vector<Translation> all = std::move(finished);
    for (const Hypothesis& h : live)
        all.push_back({h.tokens, final_score(h.sum, h.tokens.size(), o.length_penalty), false});
    if (all.empty()) throw ArgumentError("the model bans every token (bad_words_ids)");
    Translation best = all.front();
    for (const Translation& t : all)
        if (t.score > best.score) best = t;
    return best;
}

}  // namespace attn::gen
