// AttnScope — what the Batch tab shows of an attribute batch (`attnscope batch --analysis
// attribute`, docs/datasets.md): the averaged erasure curves, the mean agreement between the
// methods and each example's scores per token. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "attn/io/numpy/batch_result.hpp"
#include "attn/tokenizers/tokenizer.hpp"
#include "attn/util/types.hpp"

/// An attribute batch as the Batch tab draws it, read once off the GUI thread.
struct BatchAttribution {
    /// agreement_methods: "attention", then the token-level methods (the keys of
    /// per_example/<a> and aggregate/faith_<a>_*).
    QStringList methods;
    int erasures = 0;  ///< K: each curve has the points k = 0 … K tokens erased
    /// Per method: aggregate/faith_<a>_mean and _std (the target's logit, k = 0 … K).
    std::vector<std::vector<double>> curveMean, curveSd;
    /// aggregate/agreement_mean, _std, _count (A × A); NaN where no example defines τ-b.
    attn::Matrix agreementMean, agreementSd, agreementCount;
    /// examples/token_offsets (E + 1): example e's tokens are [offsets[e], offsets[e + 1]).
    std::vector<std::int64_t> offsets;
    /// Per example the tokens as the model folder's tokenizer shows them (empty when the
    /// folder did not open: the ids stand for them).
    std::vector<QStringList> tokens;
};

/// The attribution of R, or throws attn::FormatError naming the file, the key and the shapes
/// when an array an attribute batch holds is missing or of another shape.
BatchAttribution summarizeAttribution(const attn::io::BatchResult& r);

/// Fills A.tokens with each example's examples/token_ids as TOKENIZER shows them (ids outside
/// its vocabulary leave A.tokens empty: the ids stand for the tokens).
void labelAttributionTokens(BatchAttribution& a, const attn::io::BatchResult& r,
                            const attn::model::Tokenizer& tokenizer);

/// Whether R is an attribute batch (its analysis says so, or it has agreement_methods).
bool isAttributeBatch(const attn::io::BatchResult& r);

/// Example E's scores per token of METHOD (per_example/<method>[offsets[e] : offsets[e + 1]]).
std::vector<double> exampleScores(const attn::io::BatchResult& r, const BatchAttribution& a,
                                  const QString& method, int e);
