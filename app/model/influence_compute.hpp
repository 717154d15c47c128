// AttnScope — the Influence view's numbers: what each token contributed to one prediction,
// each method computed by core's attribution functions (docs/attribution.md), beside where
// attention looked. Worker-side: no widget, no signal. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attribution/token_attribution.hpp"
#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

/// The tokens a strip can be over, in the order the view draws them. Every key but
/// "value_zeroing" and "norm_based" is an issue-#39 ranking of `attnscope attribute
/// --faithfulness` ("attention": the last layer's mean attention row P).
namespace influence {

/// The drawable form of a token text (as token_pick's visibleToken, without its Qt widgets).
QString drawable(const std::string& text);

/// The methods' keys, in the order of the strips.
const QStringList& methodKeys();
/// The gradient methods (refused together for a family without a reverse pass).
bool isGradient(const QString& key);

/// Top-k of the model's prediction at one position.
inline constexpr int kTop = 5;

/// What to explain: the prediction at POSITION, its token TARGET (nullopt: the default,
/// core's: the last position or BERT's first [MASK], the argmax there).
struct Target {
    std::optional<attn::Index> position;
    std::optional<std::int32_t> token;
};

/// One method's score of every token (empty values and REFUSAL set when the family refuses).
struct Strip {
    QString key;
    std::vector<double> values;
    QString refusal;
};

/// Everything the view draws but the faithfulness curves.
struct Result {
    std::vector<std::int32_t> ids;
    QStringList tokens;  ///< drawable
    attn::Index position = 0;
    std::int32_t target = 0;
    QString targetText;  ///< drawable, unquoted
    double logit = 0;
    int layers = 0, heads = 0;
    bool causal = true;
    /// The kTop likeliest tokens at every position (ids, probabilities, drawable texts).
    std::vector<std::array<std::int32_t, kTop>> topIds;
    std::vector<std::array<float, kTop>> topProbabilities;
    std::vector<QStringList> topTexts;
    std::vector<Strip> strips;  ///< methodKeys() order
    /// An encoder–decoder's run: the tokens are the source's SOURCE_TOKENS, then the target's
    /// (position counts them all); 0 for a decoder-only model.
    int sourceTokens = 0;
    /// The per-head maps' query and key tokens when not TOKENS (an encoder–decoder's part).
    QStringList queryTokens, keyTokens;
    /// Row P of every head's attention weights: row l·H + h, n columns.
    attn::Matrix attentionRows;
    /// Each head's A ⊙ ∂logit/∂A (L·H of n × n, index l·H + h); empty when refused.
    std::vector<attn::Matrix> attentionXGradient;
    double igDelta = 0;
    int steps = 32;
    /// Kendall's τ-b between the strips with values, over the ranked positions.
    QStringList agreementKeys;
    attn::Matrix agreement;
};

/// The strip of KEY in R (nullptr: none).
const Strip* stripOf(const Result& r, const QString& key);

/// What compute() asks of core for MODEL: every method (the gradient methods unless the family
/// refuses them), integrated gradients of STEPS, attention flow's row P alone; the work core's
/// limit judges, as it judges `attnscope attribute`'s.
attn::attrib::AttributionWork work(const attn::model::Model& model, int steps);

/// The Influence numbers of the run of IDS through MODEL under CONTROLS for TARGET, with
/// integrated gradients of STEPS. PROGRESS reports and may cancel. Work past core's limit is
/// refused first (attn::ResourceError, core's message).
Result compute(const attn::model::ModelFolder& folder, const std::vector<std::int32_t>& ids,
               const attn::model::RunControls& controls, const Target& target, int steps,
               attn::Progress* progress);

/// The erasure curves of the strips of R (ERASER's comprehensiveness, core's erasure_curve) to
/// K tokens, and a baseline of random orders: mean and standard deviation over ORDERS seeded
/// permutations of the ranked positions.
struct Faithfulness {
    QStringList keys;
    std::vector<std::vector<double>> curves;  ///< K + 1 logits per key
    std::vector<double> randomMean, randomSpread;
    int orders = 0;
    int k = 0;
};

/// The random orders of the baseline: ORDERS permutations of POSITIONS from a fixed seed.
std::vector<std::vector<attn::Index>> randomOrders(const std::vector<attn::Index>& positions,
                                                   int orders);

Faithfulness faithfulness(const attn::model::Model& model, const attn::model::RunControls& controls,
                          const Result& r, int k, int orders, attn::Progress* progress);

}  // namespace influence
