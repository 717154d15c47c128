// AttnScope — the Batch tab. GPL-3.0-or-later.
#include "views/batch_view.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "model/batch_document.hpp"
#include "views/batch_attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/screen_only.hpp"

namespace {

constexpr char kPanelProperty[] = "attnBatchPanel";

QStringList batchNumbered(int n) {
    QStringList out;
    for (int i = 1; i <= n; ++i)
        out << QString::number(i);
    return out;
}

/// The census map's choices: the winning label, then each pattern's mean score.
constexpr int kShowLabel = -1;

QString batchPatternName(int p) {
    return QString::fromLatin1(attn::pattern_name(attn::HeadPattern(p)));
}

/// What a per-head quantity is, in words (the names; others as they are).
QString batchQuantityTitle(const QString& name) {
    if (name == QLatin1StringView("head_patch"))
        return QObject::tr("Each head patched: mean fraction of the logit difference restored");
    return QObject::tr("Mean of %1 per head").arg(name);
}

}  // namespace

BatchView::BatchView(BatchDocument* document, QWidget* parent)
    : QWidget(parent),
      doc_(document),
      caption_(new QLabel),
      status_(new QLabel),
      quantity_(new QComboBox),
      mean_(new CellMap),
      sd_(new CellMap),
      census_(new CellMap),
      censusShow_(new QComboBox),
      sort_(new QComboBox),
      list_(new QTableWidget) {
    setObjectName(QStringLiteral("batchView"));
    caption_->setObjectName(QStringLiteral("batchCaption"));
    caption_->setTextFormat(Qt::PlainText);
    caption_->setWordWrap(true);
    status_->setObjectName(QStringLiteral("batchStatus"));
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    status_->setProperty(kScreenOnlyProperty, true);
    status_->hide();
    quantity_->setObjectName(QStringLiteral("batchQuantity"));
    quantity_->setToolTip(tr("The per-head result the map shows and the examples are sorted by"));
    mean_->setObjectName(QStringLiteral("batchMeanMap"));
    sd_->setObjectName(QStringLiteral("batchSdMap"));
    census_->setObjectName(QStringLiteral("batchCensusMap"));
    censusShow_->setObjectName(QStringLiteral("batchCensusShow"));
    sort_->setObjectName(QStringLiteral("batchSort"));
    list_->setObjectName(QStringLiteral("batchList"));
    mean_->setScale(CellMap::Scale::Diverging);
    mean_->setShowValues(true);
    sd_->setScale(CellMap::Scale::Sequential);
    sd_->setShowValues(true);
    census_->setScale(CellMap::Scale::Sequential);
    census_->setLimit(1.0);  // scores and shares are in [0, 1]
    for (CellMap* m : {mean_, sd_, census_})
        m->setAxisNames(tr("layer"), tr("head"));
    mean_->setTip([this](int l, int h) { return headTip(l, h); });
    sd_->setTip([this](int l, int h) { return headTip(l, h); });
    census_->setTip([this](int l, int h) { return censusTip(l, h); });
    censusShow_->addItem(tr("most frequent label"), kShowLabel);
    for (int p = 0; p < attn::kPatternCount; ++p)
        censusShow_->addItem(tr("mean %1 score").arg(batchPatternName(p)), p);
    list_->setColumnCount(4);
    list_->setHorizontalHeaderLabels({tr("Rank"), tr("Line"), tr("Effect"), tr("Prompt")});
    list_->verticalHeader()->hide();
    list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    list_->setSelectionBehavior(QAbstractItemView::SelectRows);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setWordWrap(false);
    list_->horizontalHeader()->setStretchLastSection(true);
    list_->setToolTip(tr("Click an example to open its run with the same analysis"));

    auto* maps = new QWidget;
    auto* mapRow = new QHBoxLayout(maps);
    mapRow->setContentsMargins(0, 0, 0, 0);
    mapRow->addWidget(mean_, 1);
    mapRow->addWidget(sd_, 1);
    mapPanel_ = panel(tr("Mean per head"), maps, &mapHeading_, QStringLiteral("batch-map"));
    auto* censusBody = new QWidget;
    auto* censusColumn = new QVBoxLayout(censusBody);
    censusColumn->setContentsMargins(0, 0, 0, 0);
    auto* censusRow = new QHBoxLayout;
    censusRow->addWidget(new QLabel(tr("Show:")));
    censusRow->addWidget(censusShow_, 1);
    censusColumn->addLayout(censusRow);
    censusColumn->addWidget(census_, 1);
    static_cast<QLabel*>(censusRow->itemAt(0)->widget())->setBuddy(censusShow_);
    censusPanel_ = panel(tr("Census across the corpus"), censusBody, &censusHeading_,
                         QStringLiteral("batch-census"));
    auto* listBody = new QWidget;
    auto* listColumn = new QVBoxLayout(listBody);
    listColumn->setContentsMargins(0, 0, 0, 0);
    auto* sortRow = new QHBoxLayout;
    auto* sortLabel = new QLabel(tr("&Sort by:"));
    sortLabel->setBuddy(sort_);
    sortRow->addWidget(sortLabel);
    sortRow->addWidget(sort_, 1);
    listColumn->addLayout(sortRow);
    listColumn->addWidget(list_, 1);
    examplesPanel_ =
        panel(tr("Examples by effect"), listBody, &listHeading_, QStringLiteral("batch-examples"));

    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(mapPanel_);
    left->addWidget(censusPanel_);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("batchSplit"));
    split->addWidget(left);
    split->addWidget(examplesPanel_);
    // The list reads prompts: as wide as the maps.
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* top = new QHBoxLayout;
    top->addWidget(caption_, 1);
    quantityLabel_ = new QLabel(tr("&Result:"));
    quantityLabel_->setBuddy(quantity_);
    top->addWidget(quantityLabel_);
    top->addWidget(quantity_);
    split_ = split;
    attribution_ = new BatchAttributionView(doc_, this);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addLayout(top);
    column->addWidget(status_);
    column->addWidget(split, 1);
    column->addWidget(attribution_, 1);

    connect(doc_, &BatchDocument::resultChanged, this, &BatchView::showResult);
    connect(doc_, &BatchDocument::quantityChanged, this, &BatchView::showQuantity);
    connect(doc_, &BatchDocument::sortChanged, this, &BatchView::showSort);
    connect(quantity_, &QComboBox::activated, doc_, &BatchDocument::setQuantity);
    connect(sort_, &QComboBox::activated, this, [this](int i) {
        const int cell = sort_->itemData(i).toInt();
        doc_->setSortHead(cell < 0 ? -1 : cell / doc_->heads(),
                          cell < 0 ? -1 : cell % doc_->heads());
    });
    connect(mean_, &CellMap::cellClicked, doc_, &BatchDocument::setSortHead);
    connect(sd_, &CellMap::cellClicked, doc_, &BatchDocument::setSortHead);
    connect(censusShow_, &QComboBox::activated, this, &BatchView::showCensus);
    connect(list_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (QTableWidgetItem* item = list_->item(row, 0))
            Q_EMIT exampleActivated(item->data(Qt::UserRole).toInt());
    });
    showResult();
}

QWidget* BatchView::panel(const QString& title, QWidget* body, QLabel** heading,
                          const QString& key) {
    auto* p = new QWidget;
    p->setObjectName(key);
    p->setProperty(kPanelProperty, key);
    *heading = new QLabel(title);
    (*heading)->setTextFormat(Qt::PlainText);
    (*heading)->setWordWrap(true);
    QFont bold = (*heading)->font();
    bold.setBold(true);
    (*heading)->setFont(bold);
    auto* button = new QToolButton;
    button->setObjectName(key + QStringLiteral("-export"));
    button->setText(tr("Export…"));
    button->setToolTip(tr("Export this panel as PNG, SVG or PDF, or its numbers as .npy or .csv"));
    button->setProperty(kScreenOnlyProperty, true);
    connect(button, &QToolButton::clicked, this,
            [this, p, key] { Q_EMIT exportRequested(p, key); });
    auto* row = new QHBoxLayout;
    row->addWidget(*heading, 1);
    row->addWidget(button, 0, Qt::AlignTop);
    auto* column = new QVBoxLayout(p);
    column->setContentsMargins(0, 4, 0, 0);
    column->addLayout(row);
    column->addWidget(body, 1);
    return p;
}

QString BatchView::panelName(QWidget* panel) {
    return panel ? panel->property(kPanelProperty).toString() : QString();
}

BatchView* BatchView::of(QWidget* widget) {
    for (QWidget* w = widget; w; w = w->parentWidget())
        if (auto* view = qobject_cast<BatchView*>(w)) return view;
    return nullptr;
}

void BatchView::setStatus(const QString& text, bool warning) {
    status_->setText(text);
    // A refusal in the warning colour of the patching view; news in the text's own.
    status_->setStyleSheet(warning ? QStringLiteral("color: #b2182b;") : QString());
    status_->setVisible(!text.isEmpty());
}

QString BatchView::figureTitle() const {
    if (!doc_->result()) return {};
    return tr("%1 · %2 · %n example(s)", nullptr, doc_->examples())
        .arg(QFileInfo(doc_->path()).fileName(), doc_->analysis());
}

void BatchView::showResult() {
    setStatus({});
    if (!doc_->result()) {
        caption_->setText(
            tr("No batch result is open: File ▸ Open a .npz that "
               "“attnscope batch … -o OUT.npz” wrote."));
        for (QWidget* w : {mapPanel_, censusPanel_, examplesPanel_})
            w->hide();
        attribution_->hide();
        quantity_->setEnabled(false);
        return;
    }
    const QString model = doc_->modelDir();
    QString text =
        tr("%1 — %2 over %n example(s)", nullptr, doc_->examples())
            .arg(doc_->path(), doc_->analysis().isEmpty() ? tr("a batch") : doc_->analysis());
    text += QStringLiteral("\n") +
            (model.isEmpty() ? tr("The result names no model folder: its examples cannot be "
                                  "opened as runs.")
                             : tr("Model folder: %1").arg(model));
    if (const QString options = QString::fromStdString(doc_->result()->text(batch_keys::kOptions));
        !options.isEmpty())
        text += QStringLiteral("\n") + tr("Options: %1").arg(options);
    if (const QStringList skipped = doc_->skipped(); !skipped.isEmpty())
        text += QStringLiteral("\n") + tr("Skipped %n line(s): %1", nullptr, int(skipped.size()))
                                           .arg(skipped.join(QStringLiteral("; ")));
    caption_->setText(text);
    quantity_->clear();
    quantity_->addItems(doc_->headQuantities());
    quantity_->setEnabled(quantity_->count() > 1);
    // A census has no per-head result of its own to choose.
    quantity_->setVisible(quantity_->count() > 0);
    quantityLabel_->setVisible(quantity_->count() > 0);
    // No example kept (every line skipped): the aggregates are undefined, nothing to draw.
    const bool some = doc_->examples() > 0;
    mapPanel_->setVisible(some && doc_->quantity() != nullptr);
    examplesPanel_->setVisible(some && doc_->quantity() != nullptr);
    censusPanel_->setVisible(some && doc_->hasCensus());
    // An attribute batch has panels of its own; no example kept: nothing to draw either.
    const bool attributions = doc_->attribution() != nullptr;
    split_->setVisible(!attributions);
    attribution_->setVisible(attributions && some);
    attribution_->showResult();
    showQuantity();
    showCensus();
}

void BatchView::showQuantity() {
    const BatchSummary::Quantity* q = doc_->quantity();
    if (!q) return;
    quantity_->setCurrentIndex(doc_->quantityIndex());
    const QStringList rows = batchNumbered(doc_->layers()), cols = batchNumbered(doc_->heads());
    mean_->setData(q->mean, rows, cols);
    sd_->setData(q->sd, rows, cols);
    mean_->setTitle(tr("Mean over the examples"));
    sd_->setTitle(tr("Standard deviation (spread)"));
    mapHeading_->setText(batchQuantityTitle(q->name));
    sort_->clear();
    sort_->addItem(tr("total over every head"), -1);
    for (int l = 0; l < doc_->layers(); ++l)
        for (int h = 0; h < doc_->heads(); ++h)
            sort_->addItem(tr("layer %1, head %2").arg(l + 1).arg(h + 1), l * doc_->heads() + h);
    showSort();
}

void BatchView::showSort() {
    if (!doc_->quantity()) return;
    const int l = doc_->sortLayer(), h = doc_->sortHead();
    sort_->setCurrentIndex(l < 0 ? 0 : 1 + l * doc_->heads() + h);
    // The order is by size: a head that reverses the answer matters as much as one that
    // restores it; the sort box says by what.
    listHeading_->setText(tr("Examples, largest |effect| first"));
    listHeading_->setToolTip(l < 0 ? tr("By the total over every head")
                                   : tr("By layer %1, head %2").arg(l + 1).arg(h + 1));
    const std::vector<int> order = doc_->ranking();
    list_->setRowCount(int(order.size()));
    for (int row = 0; row < int(order.size()); ++row) {
        const BatchExample x = doc_->example(order[std::size_t(row)]);
        auto* rank = new QTableWidgetItem(QString::number(row + 1));
        rank->setData(Qt::UserRole, x.index);
        auto* line = new QTableWidgetItem(x.line > 0 ? QString::number(x.line)
                                                     : QStringLiteral("#%1").arg(x.index + 1));
        auto* effect = new QTableWidgetItem(QString::number(doc_->effect(x.index), 'f', 4));
        effect->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        QString prompt = x.text;
        if (!x.corrupt.isEmpty()) prompt += QStringLiteral("  ⟶  ") + x.corrupt;
        auto* text = new QTableWidgetItem(prompt);
        text->setToolTip(x.answer.isEmpty()
                             ? prompt
                             : tr("Clean: %1\nCorrupted: %2\nAnswer “%3”, wrong “%4”")
                                   .arg(x.text, x.corrupt, x.answer, x.wrong));
        for (auto [column, item] : {std::pair{0, rank}, {1, line}, {2, effect}, {3, text}})
            list_->setItem(row, column, item);
    }
    list_->resizeColumnsToContents();
    list_->horizontalHeader()->setStretchLastSection(true);
}

void BatchView::showCensus() {
    const BatchSummary* s = doc_->summary();
    if (!s || s->censusMean.empty()) return;
    const int shown = censusShow_->currentData().toInt();
    const QStringList rows = batchNumbered(s->layers), cols = batchNumbered(s->heads);
    if (shown >= 0) {
        // A score no example defines (induction without a repeated token) reads "—".
        const attn::Matrix& mean = s->censusMean[std::size_t(shown)];
        QStringList texts;
        for (int l = 0; l < s->layers; ++l)
            for (int h = 0; h < s->heads; ++h)
                texts << (std::isfinite(mean(l, h)) ? QString::number(double(mean(l, h)), 'f', 2)
                                                    : QStringLiteral("—"));
        census_->setData(mean, rows, cols, texts);
        census_->setTitle(tr("Mean %1 score over the examples").arg(batchPatternName(shown)));
        return;
    }
    // Each head's most frequent label, its share of the examples as the colour.
    attn::Matrix share(s->layers, s->heads);
    QStringList texts;
    for (int l = 0; l < s->layers; ++l)
        for (int h = 0; h < s->heads; ++h) {
            int best = 0;
            for (int p = 1; p <= attn::kPatternCount; ++p)
                if (s->labelWins[std::size_t(p)](l, h) > s->labelWins[std::size_t(best)](l, h))
                    best = p;
            const double examples = std::max(1, doc_->examples());
            share(l, h) = float(s->labelWins[std::size_t(best)](l, h) / examples);
            texts << batchPatternName(best);
        }
    census_->setData(share, rows, cols, texts);
    census_->setTitle(tr("Most frequent label (colour: its share of the examples)"));
}

QString BatchView::headTip(int layer, int head) const {
    const BatchSummary::Quantity* q = doc_->quantity();
    if (!q) return {};
    return tr("Layer %1, head %2: %3 ± %4, n = %5")
        .arg(layer + 1)
        .arg(head + 1)
        .arg(double(q->mean(layer, head)), 0, 'f', 4)
        .arg(double(q->sd(layer, head)), 0, 'f', 4)
        .arg(qint64(std::llround(q->n(layer, head))));
}

QString BatchView::censusTip(int layer, int head) const {
    const BatchSummary* s = doc_->summary();
    if (!s || s->censusMean.empty()) return {};
    QStringList lines{tr("Layer %1, head %2 over %n example(s):", nullptr, doc_->examples())
                          .arg(layer + 1)
                          .arg(head + 1)};
    for (int p = 0; p < attn::kPatternCount; ++p) {
        const double mean = s->censusMean[std::size_t(p)](layer, head);
        lines << tr("%1: mean score %2 (n = %3), label of %4 example(s)")
                     .arg(batchPatternName(p),
                          std::isfinite(mean) ? QString::number(mean, 'f', 4) : tr("undefined"))
                     .arg(qint64(s->censusCount[std::size_t(p)](layer, head)))
                     .arg(qint64(s->labelWins[std::size_t(p)](layer, head)));
    }
    lines << tr("mixed: label of %1 example(s)")
                 .arg(qint64(s->labelWins[std::size_t(attn::kPatternCount)](layer, head)));
    return lines.join(QLatin1Char('\n'));
}
