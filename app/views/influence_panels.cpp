// AttnScope — what the Influence tab's panels draw from the model's numbers.
// GPL-3.0-or-later.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <cmath>
#include <limits>

#include "model/influence_model.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_text.hpp"
#include "views/influence_view.hpp"
#include "views/qcp.hpp"
#include "views/series_colour.hpp"
#include "views/shown_text.hpp"

namespace {

QStringList numbered(int count) {
    QStringList out;
    for (int i = 1; i <= count; ++i)
        out << QString::number(i);
    return out;
}

}  // namespace

void InfluenceView::showResult() {
    const influence::Result* r = model_->result();
    component_->setVisible(r && r->sourceTokens > 0);
    if (!r) {
        picker_->clear();
        picker_->setTitle(
            tr("The model's 5 likeliest tokens at each position: click one to "
               "explain it"));
        strips_->clear();
        strips_->setTitle({});
        showHead();
        agreement_->clear();
        showState();
        return;
    }
    // An encoder–decoder predicts at its target positions alone: its source's columns would be
    // empty, and squeeze the target's into slivers.
    const int first = r->sourceTokens, n = int(r->ids.size()) - first;
    attn::Matrix probabilities(influence::kTop, n);
    QStringList texts;
    for (int k = 0; k < influence::kTop; ++k)
        for (int i = first; i < first + n; ++i) {
            probabilities(k, i - first) = r->topProbabilities[std::size_t(i)][std::size_t(k)];
            texts << r->topTexts[std::size_t(i)].value(k);
        }
    picker_->setData(probabilities, numbered(influence::kTop), r->tokens.mid(first), texts);
    picker_->setAxisNames(tr("rank"),
                          first > 0 ? tr("target position (token)") : tr("position (token)"));
    picker_->setEmphasisedColumns({int(r->position) - first});
    picker_->setTitle(first > 0   ? tr("The model's 5 likeliest next target tokens after each "
                                         "target position (colour: probability): click one to "
                                         "explain it")
                      : r->causal ? tr("The model's 5 likeliest next tokens after each position "
                                       "(colour: probability): click one to explain it")
                                  : tr("The model's 5 likeliest tokens at each position (colour: "
                                       "probability): click one to explain it"));
    picker_->setTip([r = model_->result(), first, this](int rank, int column) {
        const int position = column + first;
        if (r != model_->result() || position >= int(r->topIds.size())) return QString();
        const auto p = std::size_t(position), k = std::size_t(rank);
        return tr("Position %1 %2, rank %3: %4 (id %5) %6\nclick to explain it")
            .arg(column + 1)
            .arg(quotedToken(r->tokens.value(position)))
            .arg(rank + 1)
            .arg(quotedToken(r->topTexts[p].value(rank)))
            .arg(r->topIds[p][k])
            .arg(percentText(double(r->topProbabilities[p][k])));
    });
    showHead();  // the strips end with the selected head's attention row
    QStringList keys, shortKeys;
    for (const QString& key : r->agreementKeys) {
        keys << influence_text::name(key);
        shortKeys << influence_text::shortName(key);
    }
    agreement_->setData(r->agreement, keys, shortKeys);
    agreement_->setTitle(r->sourceTokens > 0
                             ? tr("Agreement and faithfulness are not measured on an "
                                  "encoder–decoder (docs/attribution.md)")
                             : tr("Agreement: Kendall's τ-b between the methods' scores of the "
                                  "positions the erasure ranks"));
    agreement_->setTip([this](int a, int b) {
        const influence::Result* now = model_->result();
        if (!now || a >= now->agreement.rows() || b >= now->agreement.cols()) return QString();
        return tr("τ-b of %1 and %2: %3")
            .arg(influence_text::name(now->agreementKeys.value(a)),
                 influence_text::name(now->agreementKeys.value(b)))
            .arg(double(now->agreement(a, b)), 0, 'f', 4);
    });
    showState();
}

void InfluenceView::showHead() {
    const influence::Result* r = model_->result();
    if (!r) {
        headMap_->clear();
        pairMap_->clear();
        return;
    }
    const int L = r->layers, H = r->heads, l = model_->layer(), h = model_->head();
    std::vector<InfluenceStrips::Row> rows;
    for (const influence::Strip& s : r->strips)
        rows.push_back({influence_text::name(s.key), s.values, s.refusal,
                        s.key == QLatin1StringView("input_x_gradient") ||
                            s.key == QLatin1StringView("integrated_gradients")});
    const attn::Index at = attn::Index(l) * H + h;
    if (at >= 0 && at < r->attentionRows.rows()) {
        const auto row = r->attentionRows.row(at);
        rows.push_back({tr("Attention L%1 H%2").arg(l + 1).arg(h + 1),
                        std::vector<double>(row.data(), row.data() + row.size()),
                        {},
                        false});
    }
    strips_->setData(std::move(rows), r->tokens, int(r->position));
    strips_->setTitle(
        (r->causal ? tr("What each token contributed to %1 (logit %2) after position %3 %4; each "
                        "strip scaled to its largest |value|, the last the selected head's "
                        "attention")
                   : tr("What each token contributed to %1 (logit %2) at position %3 %4; each "
                        "strip scaled to its largest |value|, the last the selected head's "
                        "attention"))
            .arg(quotedToken(r->targetText))
            .arg(r->logit, 0, 'f', 3)
            .arg(r->position - r->sourceTokens + 1)
            .arg(quotedToken(r->tokens.value(int(r->position)))) +
        (r->sourceTokens > 0 ? tr(" (a target position) — the %1 source tokens, then the "
                                  "target's (the decoder's inputs)")
                                   .arg(r->sourceTokens)
                             : QString()));
    const influence::Strip* ig = influence::stripOf(*r, QStringLiteral("integrated_gradients"));
    if (r->attentionXGradient.empty()) {
        headMap_->clear();
        pairMap_->clear();
        const QString why = ig ? ig->refusal : QString();
        headMap_->setTitle(tr("Attention × gradient: %1").arg(why));
        pairMap_->setTitle({});
        return;
    }
    attn::Matrix totals(L, H);
    for (int a = 0; a < L; ++a)
        for (int b = 0; b < H; ++b)
            totals(a, b) = r->attentionXGradient[std::size_t(a * H + b)].sum();
    headMap_->setData(totals, numbered(L), numbered(H));
    headMap_->setTitle(r->sourceTokens > 0
                           ? tr("%1: attention × gradient summed per head (click a head)")
                                 .arg(component_->currentText())
                           : tr("Attention × gradient summed per head: where attention mattered "
                                "(click a head)"));
    headMap_->setTip([this](int a, int b) {
        const influence::Result* now = model_->result();
        if (!now || now->attentionXGradient.empty() || a >= now->layers || b >= now->heads)
            return QString();
        return tr("Layer %1, head %2: Σ A ⊙ ∂logit/∂A = %3")
            .arg(a + 1)
            .arg(b + 1)
            .arg(double(now->attentionXGradient[std::size_t(a * now->heads + b)].sum()), 0, 'g', 5);
    });
    const attn::Matrix& pairs = r->attentionXGradient[std::size_t(l * H + h)];
    const QStringList& queries = r->queryTokens.isEmpty() ? r->tokens : r->queryTokens;
    const QStringList& keys = r->keyTokens.isEmpty() ? r->tokens : r->keyTokens;
    pairMap_->setData(pairs, queries, keys);
    pairMap_->setTitle(tr("Layer %1, head %2: A ⊙ ∂logit/∂A, query × key").arg(l + 1).arg(h + 1));
    pairMap_->setTip([this](int q, int k) {
        const influence::Result* now = model_->result();
        if (!now || now->attentionXGradient.empty()) return QString();
        const attn::Matrix& m =
            now->attentionXGradient[std::size_t(model_->layer() * now->heads + model_->head())];
        if (q >= m.rows() || k >= m.cols()) return QString();
        const QStringList& queries = now->queryTokens.isEmpty() ? now->tokens : now->queryTokens;
        const QStringList& keys = now->keyTokens.isEmpty() ? now->tokens : now->keyTokens;
        return tr("Query %1 %2, key %3 %4: %5")
            .arg(q + 1)
            .arg(quotedToken(queries.value(q)))
            .arg(k + 1)
            .arg(quotedToken(keys.value(k)))
            .arg(double(m(q, k)), 0, 'g', 5);
    });
}

void InfluenceView::showFaithfulness() {
    plot_->clearGraphs();
    plot_->legend->clearItems();
    const influence::Faithfulness* f = model_->faithfulness();
    const influence::Result* r = model_->result();
    plot_->xAxis->setLabel(tr("tokens erased (k)"));
    plot_->yAxis->setLabel(r ? tr("logit of %1").arg(quotedToken(r->targetText)) : tr("logit"));
    if (!f) {
        faithNote_->setText(
            r ? tr("Measure faithfulness erases each method's top tokens one by one and reruns "
                   "the model; a faithful ranking lowers the logit faster than random orders.")
              : QString());
        plot_->replot();
        return;
    }
    QVector<double> ks;
    for (int k = 0; k <= f->k; ++k)
        ks << double(k);
    // The random orders first, under the methods: their mean and ± one standard deviation.
    QVector<double> low, high, mean;
    for (int k = 0; k <= f->k; ++k) {
        mean << f->randomMean[std::size_t(k)];
        low << f->randomMean[std::size_t(k)] - f->randomSpread[std::size_t(k)];
        high << f->randomMean[std::size_t(k)] + f->randomSpread[std::size_t(k)];
    }
    QCPGraph* lower = plot_->addGraph();
    lower->setData(ks, low, true);
    lower->setPen(Qt::NoPen);
    lower->setName(tr("random − s.d."));
    QCPGraph* upper = plot_->addGraph();
    upper->setData(ks, high, true);
    upper->setPen(Qt::NoPen);
    upper->setBrush(QColor(128, 128, 128, 60));
    upper->setChannelFillGraph(lower);
    upper->setName(tr("random + s.d."));
    QCPGraph* random = plot_->addGraph();
    random->setData(ks, mean, true);
    random->setPen(QPen(QColor(110, 110, 110), 2, Qt::DashLine));
    random->setName(tr("random order (mean ± s.d. of %1)").arg(f->orders));
    for (int i = 0; i < f->keys.size(); ++i) {
        QCPGraph* g = plot_->addGraph();
        g->setData(
            ks, QVector<double>(f->curves[std::size_t(i)].begin(), f->curves[std::size_t(i)].end()),
            true);
        g->setPen(QPen(seriesColour(i), 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        g->setName(influence_text::name(f->keys[i]));
    }
    plot_->legend->setVisible(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    plot_->legend->setRowSpacing(0);
    lower->removeFromLegend();
    upper->removeFromLegend();
    plot_->rescaleAxes();
    plot_->xAxis->setRange(-0.2, f->k + 0.2);
    plot_->yAxis->scaleRange(1.1);
    plot_->replot();
    faithNote_->setText(tr("The logit with each method's top k tokens' inputs zeroed (k = 0: the "
                           "clean run), against %1 random orders: lower is more faithful.")
                            .arg(f->orders));
}

QString InfluenceView::curveTip(const QPoint& pos) const {
    double best = std::numeric_limits<double>::max();
    QString tip;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        QCPGraph* g = plot_->graph(i);
        if (g->pen().style() == Qt::NoPen) continue;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            const double dx = g->keyAxis()->coordToPixel(it->key) - pos.x();
            const double dy = g->valueAxis()->coordToPixel(it->value) - pos.y();
            const double d = dx * dx + dy * dy;
            if (d < best && d < 400) {
                best = d;
                tip = tr("%1: %2 tokens erased, logit %3")
                          .arg(g->name())
                          .arg(int(std::lround(it->key)))
                          .arg(it->value, 0, 'f', 4);
            }
        }
    }
    return tip;
}
