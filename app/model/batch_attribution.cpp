// AttnScope — an attribute batch as the Batch tab draws it. GPL-3.0-or-later.
#include "model/batch_attribution.hpp"

#include <cmath>

#include "attn/util/error.hpp"

namespace {

using attn::io::BatchArray;
using attn::io::BatchResult;

constexpr char kAgreementMethods[] = "agreement_methods";
constexpr char kOffsets[] = "examples/token_offsets";

[[noreturn]] void refuseAttribution(const BatchResult& r, const std::string& what) {
    throw attn::FormatError(r.source + ": " + what);
}

/// The numeric member KEY of shape WANT; refused naming the file, the key and both shapes.
const BatchArray& shaped(const BatchResult& r, const std::string& key,
                         const std::vector<std::uint64_t>& want, const std::string& what) {
    const BatchArray* a = r.find(key);
    if (!a) refuseAttribution(r, "is an attribute batch without " + key + " (" + what + ")");
    if (a->shape != want)
        refuseAttribution(r, key + " has shape " + attn::io::shape_text(a->shape) + ", expected " +
                                 attn::io::shape_text(want) + " (" + what + ")");
    return *a;
}

attn::Matrix squareOf(const BatchArray& a, int m) {
    attn::Matrix out(m, m);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j)
            out(i, j) = a.values[std::size_t(i * m + j)];
    return out;
}

}  // namespace

bool isAttributeBatch(const BatchResult& r) {
    return r.text("analysis") == "attribute" || r.texts.count(kAgreementMethods) > 0;
}

BatchAttribution summarizeAttribution(const BatchResult& r) {
    BatchAttribution a;
    const auto names = r.texts.find(kAgreementMethods);
    if (names == r.texts.end() || names->second.empty())
        refuseAttribution(r, std::string("is an attribute batch without ") + kAgreementMethods +
                                 " (the names of its methods)");
    for (const std::string& n : names->second)
        a.methods << QString::fromStdString(n);
    const std::uint64_t E = r.examples, M = std::uint64_t(a.methods.size());
    const BatchArray& offsets = shaped(r, kOffsets, {E + 1}, "E + 1 offsets of the tokens");
    for (const float o : offsets.values)
        a.offsets.push_back(std::int64_t(o));
    for (std::size_t e = 0; e < E; ++e)
        if (a.offsets[e + 1] < a.offsets[e] || a.offsets[0] != 0)
            refuseAttribution(r, std::string(kOffsets) + " decrease or do not start at 0");
    const std::uint64_t T = std::uint64_t(a.offsets.back());
    for (const QString& m : a.methods) {
        const std::string key = m.toStdString();
        shaped(r, "per_example/" + key, {T}, "a score per token");
        const BatchArray* mean = r.find("aggregate/faith_" + key + "_mean");
        if (!mean || mean->shape.size() != 1 || mean->shape[0] < 1)
            refuseAttribution(r, "is an attribute batch without aggregate/faith_" + key +
                                     "_mean of shape [K + 1] (the averaged erasure curve)");
        if (a.curveMean.empty()) a.erasures = int(mean->shape[0]) - 1;
        const std::vector<std::uint64_t> points{std::uint64_t(a.erasures) + 1};
        const BatchArray& m0 = shaped(r, "aggregate/faith_" + key + "_mean", points,
                                      "every method's curve has the same points");
        const BatchArray& s0 =
            shaped(r, "aggregate/faith_" + key + "_std", points, "the curve's standard deviation");
        a.curveMean.emplace_back(m0.values.begin(), m0.values.end());
        a.curveSd.emplace_back(s0.values.begin(), s0.values.end());
    }
    const std::vector<std::uint64_t> square{M, M};
    a.agreementMean =
        squareOf(shaped(r, "aggregate/agreement_mean", square, "methods × methods"), int(M));
    a.agreementSd =
        squareOf(shaped(r, "aggregate/agreement_std", square, "methods × methods"), int(M));
    a.agreementCount =
        squareOf(shaped(r, "aggregate/agreement_count", square, "methods × methods"), int(M));
    return a;
}

std::vector<double> exampleScores(const BatchResult& r, const BatchAttribution& a,
                                  const QString& method, int e) {
    const BatchArray* s = r.find("per_example/" + method.toStdString());
    if (!s || e < 0 || std::size_t(e) + 1 >= a.offsets.size()) return {};
    return {s->values.begin() + a.offsets[std::size_t(e)],
            s->values.begin() + a.offsets[std::size_t(e) + 1]};
}

void labelAttributionTokens(BatchAttribution& a, const BatchResult& r,
                            const attn::model::Tokenizer& tokenizer) {
    const BatchArray* ids = r.find("examples/token_ids");
    a.tokens.clear();
    if (!ids || ids->shape != std::vector<std::uint64_t>{std::uint64_t(a.offsets.back())}) return;
    std::vector<QStringList> out;
    for (std::size_t e = 0; e + 1 < a.offsets.size(); ++e) {
        std::vector<std::int32_t> one;
        for (std::int64_t t = a.offsets[e]; t < a.offsets[e + 1]; ++t) {
            const float id = ids->values[std::size_t(t)];
            if (!(id >= 0) || id >= float(tokenizer.vocab_size())) return;
            one.push_back(std::int32_t(id));
        }
        QStringList shown;
        for (const std::string& s : tokenizer.display_tokens(one))
            shown << QString::fromStdString(s);
        out.push_back(shown);
    }
    a.tokens = std::move(out);
}
