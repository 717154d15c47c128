// AttnScope — the numbers of the Batch tab's panels. GPL-3.0-or-later.
#include "export/batch_numbers.hpp"

#include "attn/analysis/census.hpp"
#include "model/batch_document.hpp"
#include "views/batch_view.hpp"

namespace exporting {
namespace {

Series batchMatrix(const QString& plot, const QString& name, const attn::Matrix& m) {
    Series s;
    s.plot = plot;
    s.name = name;
    for (attn::Index r = 0; r < m.rows(); ++r)
        for (attn::Index c = 0; c < m.cols(); ++c) {
            s.x.push_back(double(c));
            s.y.push_back(double(r));
            s.z.push_back(double(m(r, c)));
            s.xLabels << QObject::tr("head %1").arg(c + 1);
            s.yLabels << QObject::tr("layer %1").arg(r + 1);
        }
    return s;
}

void addMapNumbers(const BatchDocument& doc, PlotNumbers* n) {
    const BatchSummary::Quantity* q = doc.quantity();
    if (!q) return;
    const QString plot = q->name;
    n->series.push_back(batchMatrix(plot, QObject::tr("mean"), q->mean));
    n->series.push_back(batchMatrix(plot, QObject::tr("standard deviation"), q->sd));
    n->series.push_back(batchMatrix(plot, QObject::tr("count"), q->n));
}

void addCensusNumbers(const BatchDocument& doc, PlotNumbers* n) {
    const BatchSummary* s = doc.summary();
    if (!s || s->censusMean.empty()) return;
    const QString plot = QObject::tr("census");
    for (int p = 0; p < attn::kPatternCount; ++p)
        n->series.push_back(
            batchMatrix(plot,
                        QObject::tr("mean %1 score")
                            .arg(QString::fromLatin1(attn::pattern_name(attn::HeadPattern(p)))),
                        s->censusMean[std::size_t(p)]));
    for (int p = 0; p <= attn::kPatternCount; ++p)
        n->series.push_back(
            batchMatrix(plot,
                        QObject::tr("examples labelled %1")
                            .arg(QString::fromLatin1(attn::pattern_name(attn::HeadPattern(p)))),
                        s->labelWins[std::size_t(p)]));
}

void addExampleNumbers(const BatchDocument& doc, PlotNumbers* n) {
    if (!doc.quantity()) return;
    Series s;
    s.plot = QObject::tr("examples by effect");
    s.name = doc.sortLayer() < 0
                 ? QObject::tr("%1, total over every head").arg(doc.quantity()->name)
                 : QObject::tr("%1, layer %2, head %3")
                       .arg(doc.quantity()->name)
                       .arg(doc.sortLayer() + 1)
                       .arg(doc.sortHead() + 1);
    const std::vector<int> order = doc.ranking();
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
        const BatchExample x = doc.example(order[rank]);
        s.x.push_back(double(rank));
        s.y.push_back(doc.effect(x.index));
        s.xLabels << QStringLiteral("%1: %2").arg(x.line > 0 ? x.line : x.index + 1).arg(x.text);
    }
    n->series.push_back(std::move(s));
}

}  // namespace

bool batchNumbersOfView(QWidget* view, PlotNumbers* numbers) {
    const BatchView* batch = BatchView::of(view);
    if (!batch || !batch->document()->result()) return false;
    const BatchDocument& doc = *batch->document();
    *numbers = {};
    const bool whole = view == batch;
    if (whole || view == batch->mapPanel()) addMapNumbers(doc, numbers);
    if (whole || view == batch->censusPanel()) addCensusNumbers(doc, numbers);
    if (whole || view == batch->examplesPanel()) addExampleNumbers(doc, numbers);
    return true;
}

}  // namespace exporting
