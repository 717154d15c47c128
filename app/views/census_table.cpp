// AttnScope — the head census as a table. GPL-3.0-or-later.
#include "views/census_table.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "attn/util/error.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/while_visible.hpp"
#include "views/model_grid_data.hpp"

namespace {
constexpr int kThumb = LayerCache::kCensusThumbSide;

/// The census and its thumbnails, as the layer cache computed them.
CensusData censusOf(const LayerSet& set) {
    CensusData d;
    d.error = set.censusError;
    if (d.error.isEmpty()) {
        d.census = set.census;
        d.thumbnails = set.censusThumbs;
        const QList<QRgb> colors = model_grid::thumbnailColors(ColorMapKind::Viridis);
        for (QImage& image : d.thumbnails)
            image.setColorTable(colors);
    }
    return d;
}

/// A cell shown with fixed decimals that sorts by its number (undefined scores sort first).
class NumberItem : public QTableWidgetItem {
  public:
    NumberItem(double v, int decimals)
        : QTableWidgetItem(std::isfinite(v) ? QString::number(v, 'f', decimals)
                                            : QStringLiteral("—")),
          value_(std::isfinite(v) ? v : -1.0) {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (!std::isfinite(v))
            setToolTip(QObject::tr("undefined: no token repeats in this sequence"));
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const auto* n = dynamic_cast<const NumberItem*>(&other);
        return n ? value_ < n->value_ : QTableWidgetItem::operator<(other);
    }
    double value() const { return value_; }

  private:
    double value_;
};

QTableWidgetItem* numberItem(double v, int decimals) {
    return new NumberItem(v, decimals);
}

int intOf(const QTableWidgetItem* item) {
    return static_cast<int>(static_cast<const NumberItem*>(item)->value());
}
}  // namespace

CensusTable::CensusTable(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      table_(new QTableWidget),
      filter_(new QComboBox),
      note_(new QLabel),
      cache_(LayerCache::of(scene)),
      refresh_(new WhileVisible(this, [this] {
          if (cache_->current()) return onLayers();
          cache_->want();
      })) {
    setObjectName(QStringLiteral("censusTable"));
    filter_->addItem(tr("All patterns"), -1);
    for (int p = 0; p <= attn::kPatternCount; ++p)
        filter_->addItem(QString::fromLatin1(attn::pattern_name(attn::HeadPattern(p))), p);
    filter_->setToolTip(tr("Show only the heads with this label"));
    note_->setText(
        tr("Head census: each head's highest clear score names it; ties go to the "
           "more specific pattern (docs/census.md). Click a column to sort; "
           "double-click a row to open the head."));
    note_->setWordWrap(true);
    QStringList headers{tr(""), tr("layer"), tr("head"), tr("pattern")};
    for (int p = 0; p < attn::kPatternCount; ++p)
        headers << QString::fromStdString(attn::pattern_column(attn::HeadPattern(p)));
    table_->setColumnCount(int(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    // The app numbers layers and heads from 1 (Heads and Model tabs); `attnscope census` and
    // its files from 0, as Python does: say so where a user compares the two.
    for (int c : {1, 2})
        table_->horizontalHeaderItem(c)->setToolTip(
            tr("Numbered from 1, as in the Heads and Model tabs (attnscope census and its CSV "
               "and JSON number from 0)"));
    // Attention sinks: the heads that park their weight on the first token ([CLS], <s>, …).
    const int sinkColumn = 4 + int(attn::HeadPattern::FirstToken);
    table_->horizontalHeaderItem(sinkColumn)
        ->setToolTip(tr("Attention sink: the mean weight each query puts on the first token. "
                        "Heads at %1 or more are counted as sinks above.")
                         .arg(attn::kClearScore));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(kThumb + 4);
    table_->setIconSize(QSize(kThumb, kThumb));
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setSortingEnabled(true);
    // A header and three heads at least, above a horizontal scroll bar when the table is narrow.
    table_->setMinimumHeight(3 * (kThumb + 4) + table_->horizontalHeader()->sizeHint().height() +
                             style()->pixelMetric(QStyle::PM_ScrollBarExtent) +
                             2 * table_->frameWidth());

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Show:")));
    top->addWidget(filter_);
    top->addWidget(note_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(table_, 1);

    connect(scene_, &Scene::specChanged, refresh_, &WhileVisible::stale);
    // The census is the scene's layer cache's, computed once for every view of all layers.
    connect(cache_, &LayerCache::layersReady, this, &CensusTable::onLayers);
    connect(cache_, &LayerCache::layersFailed, this, [this](const QString& error) {
        onComputed(CensusData{{}, {}, error});
    });
    connect(filter_, &QComboBox::currentIndexChanged, this, &CensusTable::applyFilter);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        Q_EMIT headActivated(intOf(table_->item(row, 1)) - 1, intOf(table_->item(row, 2)) - 1);
    });
}

void CensusTable::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitNote();
}

void CensusTable::fitNote() {
    const int h = note_->heightForWidth(note_->width());
    if (h > 0 && h != note_->minimumHeight()) note_->setMinimumHeight(h);
}

void CensusTable::refreshNow() {
    cache_->computeNow();
    refresh_->clear();
}

void CensusTable::onLayers() {
    if (cache_->current()) onComputed(censusOf(*cache_->layers()));
}

void CensusTable::onComputed(CensusData data) {
    data_ = std::move(data);
    table_->setSortingEnabled(false);  // rows are filled in census order, then sorted
    table_->setRowCount(0);
    if (!data_.error.isEmpty()) {
        note_->setText(tr("No census: %1").arg(data_.error));
        fitNote();
        return;
    }
    const int layers = data_.census.layers;
    note_->setText(tr("Head census of %1 × %2 heads: each head's highest clear score "
                      "names it; ties go to the more specific pattern (docs/census.md). Click a "
                      "column to sort; double-click a row to open the head.")
                       .arg(layers == 1 ? tr("1 layer") : tr("%1 layers").arg(layers))
                       .arg(data_.census.heads));
    int sinks = 0;
    for (const attn::HeadCensus& h : data_.census.entries)
        sinks += h.score(attn::HeadPattern::FirstToken) >= attn::kClearScore ? 1 : 0;
    note_->setText(note_->text() + QLatin1Char(' ') +
                   tr("Attention sinks (first_token ≥ %1): %2 of %3 heads.")
                       .arg(attn::kClearScore)
                       .arg(sinks)
                       .arg(data_.census.entries.size()));
    fitNote();
    table_->setRowCount(int(data_.census.entries.size()));
    for (int r = 0; r < int(data_.census.entries.size()); ++r) {
        const attn::HeadCensus& h = data_.census.entries[std::size_t(r)];
        auto* thumb = new QTableWidgetItem;
        if (std::size_t(r) < data_.thumbnails.size())
            thumb->setIcon(QIcon(QPixmap::fromImage(data_.thumbnails[std::size_t(r)].scaled(
                kThumb, kThumb, Qt::IgnoreAspectRatio, Qt::FastTransformation))));
        table_->setItem(r, 0, thumb);
        // Numbered from 1, as everywhere in the window (the CSV of `attnscope census` from 0).
        table_->setItem(r, 1, numberItem(double(h.layer + 1), 0));
        table_->setItem(r, 2, numberItem(double(h.head + 1), 0));
        auto* label = new QTableWidgetItem(QString::fromLatin1(attn::pattern_name(h.label)));
        label->setData(Qt::UserRole, int(h.label));
        table_->setItem(r, 3, label);
        for (int p = 0; p < attn::kPatternCount; ++p)
            table_->setItem(r, 4 + p, numberItem(h.scores[std::size_t(p)], 3));
    }
    table_->setSortingEnabled(true);
    applyFilter();
}

void CensusTable::applyFilter() {
    const int want = filter_->currentData().toInt();
    for (int r = 0; r < table_->rowCount(); ++r)
        table_->setRowHidden(r,
                             want >= 0 && table_->item(r, 3)->data(Qt::UserRole).toInt() != want);
}

int CensusTable::visibleRows() const {
    int n = 0;
    for (int r = 0; r < table_->rowCount(); ++r)
        n += table_->isRowHidden(r) ? 0 : 1;
    return n;
}
