// AttnScope — the Batch tab's panels of an attribute batch. GPL-3.0-or-later.
#include "views/batch_attribution_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "model/batch_document.hpp"
#include "views/batch_view.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_text.hpp"
#include "views/plot_theme.hpp"
#include "views/qcp.hpp"
#include "views/series_colour.hpp"
#include "views/shown_text.hpp"

namespace {

/// A number as the tips give it: six significant digits, "NaN" for an undefined one.
QString attributionNumber(double v) {
    return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 6);
}

/// The signed methods (a token can push the logit down) drawn blue − white + red.
bool signedMethod(const QString& key) {
    return key == QLatin1StringView("input_x_gradient") ||
           key == QLatin1StringView("integrated_gradients");
}

}  // namespace

BatchAttributionView::BatchAttributionView(BatchDocument* document, BatchView* owner)
    : QWidget(owner),
      doc_(document),
      plot_(new QCustomPlot),
      agreement_(new CellMap),
      strips_(new InfluenceStrips),
      example_(new QComboBox) {
    setObjectName(QStringLiteral("batchAttribution"));
    plot_->setObjectName(QStringLiteral("batchFaithfulness"));
    plot_->setMinimumSize(280, 240);
    applyPlotTheme(plot_, palette());
    placeLegendBelow(plot_);
    plot_->installEventFilter(this);
    // k counts tokens: whole-number ticks (multiples of 1 as K grows).
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(ticker);
    agreement_->setObjectName(QStringLiteral("batchAgreement"));
    agreement_->setScale(CellMap::Scale::Diverging);
    agreement_->setLimit(1.0);
    agreement_->setKeyMarks({-1.0, 0.0, 1.0});
    agreement_->setTip([this](int a, int b) { return agreementTip(a, b); });
    strips_->setObjectName(QStringLiteral("batchTokenScores"));
    strips_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    example_->setObjectName(QStringLiteral("batchAttributedExample"));
    example_->setToolTip(tr("The example whose scores per token are shown"));
    example_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    example_->setMinimumContentsLength(16);

    faithPanel_ = owner->panel(tr("Faithfulness averaged over the examples"), plot_, &faithHeading_,
                               QStringLiteral("batch-faithfulness"));
    agreementPanel_ = owner->panel(tr("Mean agreement between the methods"), agreement_,
                                   &agreementHeading_, QStringLiteral("batch-agreement"));
    auto* tokens = new QWidget;
    auto* tokensColumn = new QVBoxLayout(tokens);
    tokensColumn->setContentsMargins(0, 0, 0, 0);
    auto* chooser = new QHBoxLayout;
    auto* label = new QLabel(tr("E&xample:"));
    label->setBuddy(example_);
    chooser->addWidget(label);
    chooser->addWidget(example_, 1);
    tokensColumn->addLayout(chooser);
    tokensColumn->addWidget(strips_);
    tokensPanel_ = owner->panel(tr("Scores per token"), tokens, &tokensHeading_,
                                QStringLiteral("batch-tokens"));

    // The curves take the left's height; the strips (a row per method) leave room under them
    // for the agreement.
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(tokensPanel_);
    right->addWidget(agreementPanel_);
    right->setStretchFactor(0, 0);
    right->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(faithPanel_);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(split);

    connect(example_, &QComboBox::activated, doc_, &BatchDocument::setAttributedExample);
    connect(doc_, &BatchDocument::attributedExampleChanged, this,
            &BatchAttributionView::showExample);
}

void BatchAttributionView::showResult() {
    const BatchAttribution* a = doc_->attribution();
    example_->clear();
    if (!a || doc_->examples() == 0) {
        plot_->clearGraphs();
        agreement_->clear();
        strips_->clear();
        return;
    }
    for (int e = 0; e < doc_->examples(); ++e) {
        const BatchExample x = doc_->example(e);
        example_->addItem(tr("line %1: %2").arg(x.line > 0 ? x.line : e + 1).arg(x.text), e);
    }
    showCurves();
    showAgreement();
    showExample();
}

void BatchAttributionView::showCurves() {
    const BatchAttribution& a = *doc_->attribution();
    plot_->clearGraphs();
    plot_->legend->clearItems();
    QVector<double> ks;
    for (int k = 0; k <= a.erasures; ++k)
        ks << double(k);
    for (int m = 0; m < a.methods.size(); ++m) {
        const std::vector<double>& mean = a.curveMean[std::size_t(m)];
        const std::vector<double>& sd = a.curveSd[std::size_t(m)];
        QVector<double> low, high;
        for (std::size_t k = 0; k < mean.size(); ++k) {
            low << mean[k] - sd[k];
            high << mean[k] + sd[k];
        }
        QColor band = seriesColour(m);
        band.setAlpha(40);
        QCPGraph* lower = plot_->addGraph();
        lower->setData(ks, low, true);
        lower->setPen(Qt::NoPen);
        lower->removeFromLegend();
        QCPGraph* upper = plot_->addGraph();
        upper->setData(ks, high, true);
        upper->setPen(Qt::NoPen);
        upper->setBrush(band);
        upper->setChannelFillGraph(lower);
        upper->removeFromLegend();
        QCPGraph* g = plot_->addGraph();
        g->setData(ks, QVector<double>(mean.begin(), mean.end()), true);
        g->setPen(QPen(seriesColour(m), 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        g->setName(influence_text::name(a.methods[m]));
        g->setProperty("attnMethod", m);
    }
    plot_->xAxis->setLabel(tr("tokens erased (k)"));
    plot_->yAxis->setLabel(tr("mean logit"));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setVisible(true);
    plot_->rescaleAxes();
    plot_->xAxis->setRange(-0.2, a.erasures + 0.2);
    plot_->yAxis->scaleRange(1.1);
    plot_->replot();
    faithHeading_->setText(
        tr("Faithfulness over %n example(s): the logit with each method's "
           "top k tokens erased, mean ± s.d. (lower is more faithful)",
           nullptr, doc_->examples()));
}

void BatchAttributionView::showAgreement() {
    const BatchAttribution& a = *doc_->attribution();
    QStringList names, shortNames, texts;
    for (const QString& m : a.methods) {
        names << influence_text::name(m);
        shortNames << influence_text::shortName(m);
    }
    for (int i = 0; i < a.agreementMean.rows(); ++i)
        for (int j = 0; j < a.agreementMean.cols(); ++j)
            texts << (std::isnan(a.agreementMean(i, j))
                          ? QStringLiteral("NaN")
                          : QString::number(double(a.agreementMean(i, j)), 'f', 2));
    agreement_->setData(a.agreementMean, names, shortNames, texts);
    agreement_->setTitle(
        tr("Mean Kendall τ-b between the methods' scores (NaN: no example "
           "defines it)"));
}

void BatchAttributionView::showExample() {
    const BatchAttribution* a = doc_->attribution();
    if (!a) return;
    const int e = doc_->attributedExample();
    example_->setCurrentIndex(e);
    const attn::io::BatchResult& r = *doc_->result();
    const auto first = std::size_t(a->offsets[std::size_t(e)]);
    const int n = int(a->offsets[std::size_t(e) + 1] - a->offsets[std::size_t(e)]);
    QStringList tokens =
        std::size_t(e) < a->tokens.size() ? a->tokens[std::size_t(e)] : QStringList();
    const attn::io::BatchArray* ids = r.find("examples/token_ids");
    if (tokens.size() != n) {  // no tokenizer: the ids stand for the tokens
        tokens.clear();
        for (int t = 0; t < n; ++t)
            tokens << (ids && first + std::size_t(t) < ids->values.size()
                           ? QStringLiteral("#%1").arg(qint64(ids->values[first + std::size_t(t)]))
                           : QString::number(t + 1));
    }
    std::vector<InfluenceStrips::Row> rows;
    for (const QString& m : a->methods)
        rows.push_back({influence_text::name(m), exampleScores(r, *a, m, e), {}, signedMethod(m)});
    const auto number = [&](const char* key) {
        const attn::io::BatchArray* v = r.find(key);
        return v && std::size_t(e) < v->values.size() ? double(v->values[std::size_t(e)])
                                                      : std::numeric_limits<double>::quiet_NaN();
    };
    const int position = int(number("per_example/position"));
    strips_->setData(std::move(rows), tokens, position);
    const BatchExample x = doc_->example(e);
    strips_->setTitle(tr("Line %1: what each token contributed to token %2 (logit %3) at "
                         "position %4 %5; each strip scaled to its largest |value|")
                          .arg(x.line > 0 ? x.line : e + 1)
                          .arg(qint64(number("per_example/target")))
                          .arg(attributionNumber(number("per_example/logit")))
                          .arg(position + 1)
                          .arg(quotedToken(tokens.value(position))));
    tokensHeading_->setText(tr("Scores per token of “%1”").arg(x.text));
}

QString BatchAttributionView::curveTip(const QPoint& pos) const {
    const BatchAttribution* a = doc_->attribution();
    if (!a) return {};
    double best = 400;  // within 20 pixels
    QString tip;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        QCPGraph* g = plot_->graph(i);
        if (g->pen().style() == Qt::NoPen) continue;
        const int m = g->property("attnMethod").toInt();
        for (int k = 0; k <= a->erasures; ++k) {
            const double mean = a->curveMean[std::size_t(m)][std::size_t(k)];
            const double dx = g->keyAxis()->coordToPixel(k) - pos.x();
            const double dy = g->valueAxis()->coordToPixel(mean) - pos.y();
            if (dx * dx + dy * dy >= best) continue;
            best = dx * dx + dy * dy;
            tip = tr("%1, %2 token(s) erased: mean logit %3 ± %4 (s.d.), n = %5")
                      .arg(g->name())
                      .arg(k)
                      .arg(attributionNumber(mean),
                           attributionNumber(a->curveSd[std::size_t(m)][std::size_t(k)]))
                      .arg(doc_->examples());
        }
    }
    return tip;
}

QString BatchAttributionView::agreementTip(int i, int j) const {
    const BatchAttribution* a = doc_->attribution();
    if (!a || i < 0 || j < 0 || i >= a->agreementMean.rows() || j >= a->agreementMean.cols())
        return {};
    const QString pair =
        tr("τ-b of %1 and %2")
            .arg(influence_text::name(a->methods[i]), influence_text::name(a->methods[j]));
    const qint64 n = qint64(std::llround(a->agreementCount(i, j)));
    if (n == 0)
        return tr("%1: NaN, defined in no example (a method scored every token alike)").arg(pair);
    return tr("%1: mean %2 ± %3 (s.d.) over the %4 example(s) that define it")
        .arg(pair, attributionNumber(a->agreementMean(i, j)),
             attributionNumber(a->agreementSd(i, j)))
        .arg(n);
}

bool BatchAttributionView::eventFilter(QObject* watched, QEvent* event) {
    if (watched != plot_ || event->type() != QEvent::ToolTip)
        return QWidget::eventFilter(watched, event);
    // The nearest mean point's numbers, or no tip away from the curves.
    const auto* help = static_cast<const QHelpEvent*>(event);
    if (const QString tip = curveTip(help->pos()); !tip.isEmpty())
        QToolTip::showText(help->globalPos(), tip, plot_);
    else
        QToolTip::hideText();
    return true;
}
