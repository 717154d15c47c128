// AttnScope — the open batch result and what is chosen in it. GPL-3.0-or-later.
#include "model/batch_document.hpp"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/util/error.hpp"

namespace {

const std::string kBatchPerExample = "per_example/";

[[noreturn]] void refuseBatch(const attn::io::BatchResult& r, const std::string& what) {
    throw attn::FormatError(r.source + ": " + what);
}

/// A 2-D aggregate of shape [L, H] as a matrix; refused naming the key otherwise.
attn::Matrix layerHeadMatrix(const attn::io::BatchResult& r, const attn::io::BatchArray& a,
                             const std::string& key, int layers, int heads) {
    attn::Matrix m(layers, heads);
    if (a.count() == 1) {  // one count for every head
        m.setConstant(a.values[0]);
        return m;
    }
    if (a.shape != std::vector<std::uint64_t>{std::uint64_t(layers), std::uint64_t(heads)})
        refuseBatch(r, key + " has shape " + attn::io::shape_text(a.shape) + ", expected [" +
                           std::to_string(layers) + ", " + std::to_string(heads) +
                           "] (layers × heads)");
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            m(l, h) = a.values[std::size_t(l * heads + h)];
    return m;
}

/// The examples ordered by |EFFECT|, largest first, ties by index: a head that reverses the
/// answer matters as much as one that restores it.
std::vector<int> rankBy(const std::vector<double>& effect) {
    std::vector<int> order(effect.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return std::abs(effect[std::size_t(a)]) > std::abs(effect[std::size_t(b)]);
    });
    return order;
}

/// An aggregate of shape [L, H, K] as K matrices L × H; refused naming the key otherwise.
std::vector<attn::Matrix> layerHeadPlanes(const attn::io::BatchResult& r, const char* key,
                                          int layers, int heads, int planes) {
    const attn::io::BatchArray* a = r.find(key);
    const std::vector<std::uint64_t> want{std::uint64_t(layers), std::uint64_t(heads),
                                          std::uint64_t(planes)};
    if (!a) refuseBatch(r, std::string("has no ") + key);
    if (a->shape != want)
        refuseBatch(r, std::string(key) + " has shape " + attn::io::shape_text(a->shape) +
                           ", expected " + attn::io::shape_text(want) + " (layers × heads × " +
                           std::to_string(planes) + ")");
    std::vector<attn::Matrix> out(std::size_t(planes), attn::Matrix(layers, heads));
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int p = 0; p < planes; ++p)
                out[std::size_t(p)](l, h) = a->values[std::size_t((l * heads + h) * planes + p)];
    return out;
}

/// The census's aggregates as the file holds them (the batch worked them out).
void summarizeCensus(const attn::io::BatchResult& r, BatchSummary& s) {
    const attn::io::BatchArray* mean = r.find(batch_keys::kCensusMean);
    if (!mean) return;
    if (s.layers == 0 && mean->shape.size() == 3) {
        s.layers = int(mean->shape[0]);
        s.heads = int(mean->shape[1]);
    }
    const int patterns = attn::kPatternCount;
    s.censusMean = layerHeadPlanes(r, batch_keys::kCensusMean, s.layers, s.heads, patterns);
    s.censusCount = layerHeadPlanes(r, batch_keys::kCensusCount, s.layers, s.heads, patterns);
    s.labelWins = layerHeadPlanes(r, batch_keys::kLabelCounts, s.layers, s.heads, patterns + 1);
}

}  // namespace

BatchSummary summarizeBatch(std::shared_ptr<const attn::io::BatchResult> result) {
    BatchSummary s;
    s.result = result;
    const attn::io::BatchResult& r = *result;
    if (isAttributeBatch(r)) {  // its [E, A, A] agreement is no per-head quantity
        s.attribution = summarizeAttribution(r);
        return s;
    }
    for (const std::string& name : r.per_example_names(3)) {
        // The patching map must have its aggregates; another [E, ·, ·] array without
        // them (an analysis's ragged part) is not a per-head quantity.
        if (name != "head_patch" && !r.find("aggregate/" + name + "_mean")) continue;
        const attn::io::BatchArray& per = *r.find(kBatchPerExample + name);
        const attn::io::BatchStat stat = r.stat(name);  // refuses missing aggregates
        if (s.quantities.empty()) {
            s.layers = int(per.shape[1]);
            s.heads = int(per.shape[2]);
        }
        BatchSummary::Quantity q;
        q.name = QString::fromStdString(name);
        const std::string agg = "aggregate/" + name;
        q.mean = layerHeadMatrix(r, stat.mean, agg + "_mean", s.layers, s.heads);
        q.sd = layerHeadMatrix(r, stat.std, agg + "_std", s.layers, s.heads);
        q.n = layerHeadMatrix(r, stat.count, "aggregate/count", s.layers, s.heads);
        const std::size_t cells = std::size_t(s.layers * s.heads);
        std::vector<double> total(r.examples, 0.0), one(r.examples);
        for (std::size_t e = 0; e < r.examples; ++e)
            for (std::size_t c = 0; c < cells; ++c)
                total[e] += per.values[e * cells + c];
        q.rankings.push_back(rankBy(total));
        for (std::size_t c = 0; c < cells; ++c) {
            for (std::size_t e = 0; e < r.examples; ++e)
                one[e] = per.values[e * cells + c];
            q.rankings.push_back(rankBy(one));
        }
        s.quantities.push_back(std::move(q));
    }
    summarizeCensus(r, s);
    if (s.quantities.empty() && s.censusMean.empty())
        refuseBatch(r,
                    "holds no per-head result to show: no per_example/<name> of shape "
                    "[examples, layers, heads] and no census (docs/datasets.md)");
    return s;
}

BatchDocument::BatchDocument(QObject* parent) : QObject(parent) {}

void BatchDocument::setSummary(std::shared_ptr<const BatchSummary> summary) {
    summary_ = std::move(summary);
    quantity_ = 0;
    sortLayer_ = sortHead_ = -1;
    attributed_ = 0;
    Q_EMIT resultChanged();
}

const attn::io::BatchResult* BatchDocument::result() const {
    return summary_ ? summary_->result.get() : nullptr;
}

QString BatchDocument::path() const {
    return result() ? QString::fromStdString(result()->source) : QString();
}

QString BatchDocument::analysis() const {
    if (!result()) return {};
    const std::string said = result()->text(batch_keys::kAnalysis);
    if (!said.empty()) return QString::fromStdString(said);
    if (result()->find(kBatchPerExample + "head_patch")) return QStringLiteral("patch");
    if (attribution()) return QStringLiteral("attribute");
    if (hasCensus()) return QStringLiteral("census");
    return {};
}

QString BatchDocument::modelDir() const {
    return result() ? QString::fromStdString(result()->text(batch_keys::kModel)) : QString();
}

int BatchDocument::examples() const {
    return result() ? int(result()->examples) : 0;
}

int BatchDocument::layers() const {
    return summary_ ? summary_->layers : 0;
}

int BatchDocument::heads() const {
    return summary_ ? summary_->heads : 0;
}

QStringList BatchDocument::skipped() const {
    QStringList out;
    if (!result()) return out;
    const attn::io::BatchArray* lines = result()->find(batch_keys::kSkippedLine);
    for (std::size_t i = 0; lines && i < lines->values.size(); ++i)
        out << QStringLiteral("%1: %2")
                   .arg(qint64(lines->values[i]))
                   .arg(QString::fromStdString(result()->text(batch_keys::kSkippedReason, i)));
    return out;
}

QStringList BatchDocument::headQuantities() const {
    QStringList out;
    if (summary_)
        for (const auto& q : summary_->quantities)
            out << q.name;
    return out;
}

const BatchSummary::Quantity* BatchDocument::quantity() const {
    if (!summary_ || quantity_ >= int(summary_->quantities.size())) return nullptr;
    return &summary_->quantities[std::size_t(quantity_)];
}

void BatchDocument::setQuantity(int index) {
    if (!summary_ || index < 0 || index >= int(summary_->quantities.size()) || index == quantity_)
        return;
    quantity_ = index;
    Q_EMIT quantityChanged();
    Q_EMIT sortChanged();
}

void BatchDocument::setSortHead(int layer, int head) {
    if (layer < 0 || head < 0 || layer >= layers() || head >= heads()) layer = head = -1;
    if (layer == sortLayer_ && head == sortHead_) return;
    sortLayer_ = layer;
    sortHead_ = head;
    Q_EMIT sortChanged();
}

double BatchDocument::effect(int example) const {
    const BatchSummary::Quantity* q = quantity();
    if (!q) return 0;
    const attn::io::BatchArray& per = *result()->find(kBatchPerExample + q->name.toStdString());
    const std::size_t cells = std::size_t(layers() * heads());
    const float* row = per.values.data() + std::size_t(example) * cells;
    if (sortLayer_ >= 0) return row[sortLayer_ * heads() + sortHead_];
    double total = 0;
    for (std::size_t c = 0; c < cells; ++c)
        total += row[c];
    return total;
}

std::vector<int> BatchDocument::ranking() const {
    const BatchSummary::Quantity* q = quantity();
    if (!q) {
        std::vector<int> order(static_cast<std::size_t>(examples()));
        std::iota(order.begin(), order.end(), 0);
        return order;
    }
    return q->rankings[sortLayer_ < 0 ? 0 : std::size_t(1 + sortLayer_ * heads() + sortHead_)];
}

BatchExample BatchDocument::example(int index) const {
    BatchExample x;
    x.index = index;
    if (!result()) return x;
    const attn::io::BatchResult& r = *result();
    const auto text = [&](const char* key) {
        return QString::fromStdString(r.text(key, std::size_t(index)));
    };
    x.text = text(batch_keys::kClean);
    if (x.text.isEmpty()) x.text = text(batch_keys::kText);
    x.corrupt = text(batch_keys::kCorrupt);
    x.answer = text(batch_keys::kAnswer);
    x.wrong = text(batch_keys::kWrong);
    if (const attn::io::BatchArray* line = r.find(batch_keys::kLine);
        line && line->values.size() == r.examples)
        x.line = int(line->values[std::size_t(index)]);
    return x;
}

bool BatchDocument::hasCensus() const {
    return summary_ && !summary_->censusMean.empty();
}

const BatchAttribution* BatchDocument::attribution() const {
    return summary_ && summary_->attribution ? &*summary_->attribution : nullptr;
}

void BatchDocument::setAttributedExample(int index) {
    if (!attribution() || index < 0 || index >= examples() || index == attributed_) return;
    attributed_ = index;
    Q_EMIT attributedExampleChanged();
}
