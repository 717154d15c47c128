// AttnScope — the numbers of the Batch tab's panels. GPL-3.0-or-later.
#include "export/batch_numbers.hpp"

#include "attn/analysis/census.hpp"
#include "model/batch_document.hpp"
#include "views/batch_attribution_view.hpp"
#include "views/batch_view.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_text.hpp"

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

/// The averaged erasure curves: per method its mean, mean − s.d. and mean + s.d. (x = k).
void addFaithNumbers(const BatchAttribution& a, PlotNumbers* n) {
    const QString plot = QObject::tr("faithfulness");
    for (int m = 0; m < a.methods.size(); ++m) {
        const std::vector<double>&mean = a.curveMean[std::size_t(m)],
              &sd = a.curveSd[std::size_t(m)];
        for (int part = -1; part <= 1; ++part) {
            Series s;
            s.plot = plot;
            s.name =
                influence_text::name(a.methods[m]) + (part == 0  ? QObject::tr(" mean")
                                                      : part < 0 ? QObject::tr(" mean − s.d.")
                                                                 : QObject::tr(" mean + s.d."));
            for (std::size_t k = 0; k < mean.size(); ++k) {
                s.x.push_back(double(k));
                s.y.push_back(mean[k] + part * sd[k]);
            }
            n->series.push_back(std::move(s));
        }
    }
}

/// The mean agreement, its standard deviation and count (z at column x, row y: the methods).
void addAgreementNumbers(const BatchAttribution& a, PlotNumbers* n) {
    const QString plot = QObject::tr("Kendall's tau-b");
    for (const auto& [name, m] : {std::pair{QObject::tr("mean"), &a.agreementMean},
                                  std::pair{QObject::tr("standard deviation"), &a.agreementSd},
                                  std::pair{QObject::tr("count"), &a.agreementCount}}) {
        Series s = batchMatrix(plot, name, *m);
        s.xLabels.clear();
        s.yLabels.clear();
        for (attn::Index r = 0; r < m->rows(); ++r)
            for (attn::Index c = 0; c < m->cols(); ++c) {
                s.xLabels << a.methods[int(c)];
                s.yLabels << a.methods[int(r)];
            }
        n->series.push_back(std::move(s));
    }
}

/// The example on show: each method's score per token (x the position from 0, its token).
void addTokenNumbers(const BatchView& view, PlotNumbers* n) {
    const InfluenceStrips* strips = view.attribution()->strips();
    for (const InfluenceStrips::Row& row : strips->rows()) {
        Series s;
        s.plot = QObject::tr("scores per token, example %1")
                     .arg(view.document()->attributedExample() + 1);
        s.name = row.label;
        for (std::size_t t = 0; t < row.values.size(); ++t) {
            s.x.push_back(double(t));
            s.y.push_back(row.values[t]);
            s.xLabels << strips->tokens().value(int(t));
        }
        n->series.push_back(std::move(s));
    }
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
    if (const BatchAttribution* a = doc.attribution(); a && doc.examples() > 0) {
        const BatchAttributionView* panels = batch->attribution();
        if (whole || view == panels->faithPanel()) addFaithNumbers(*a, numbers);
        if (whole || view == panels->agreementPanel()) addAgreementNumbers(*a, numbers);
        if (whole || view == panels->tokensPanel()) addTokenNumbers(*batch, numbers);
    }
    return true;
}

}  // namespace exporting
