// The heatmap grid on its own (as the CLI uses it): results, aggregation of long sequences,
// masked cells, layout of 1–16 heads, rendering to images and SVG.
#include <QBuffer>
#include <QImage>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTest>

#include "app_test_support.hpp"
#include "attn/attention/aggregate.hpp"
#include "model/heatmap_model.hpp"
#include "views/color_maps.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"

namespace {

SceneResultPtr computeShared(const attn::SceneSpec& s) {
    return std::make_shared<const attn::SceneResult>(attn::compute_scene(s));
}

attn::SceneSpec longSpec(int n, int heads) {
    attn::SceneSpec s;
    std::string text;
    for (int i = 0; i < n; ++i) {
        (text += "t") += std::to_string(i % 251);
        text += ' ';
    }
    s.text = text;
    s.heads = heads;
    return s;
}

/// 12 heads of 200 tokens: they scroll in a 1000 × 700 grid, a few on screen.
attn::SceneSpec scrollingSpec() {
    attn::SceneSpec s = longSpec(200, 12);
    s.d_model = 96;
    return s;
}

/// Shows grid at 1000 × 700 with spec's result; false if the window never appeared.
bool showScrolling(HeatmapGrid& grid, const attn::SceneSpec& spec) {
    grid.resize(1000, 700);
    grid.show();
    if (!QTest::qWaitForWindowExposed(&grid)) return false;
    grid.setResult(computeShared(spec));
    QCoreApplication::processEvents();
    return true;
}

/// Scrolls the grid to its end (the last head into view); false if it has no scroll bar.
bool scrollToEnd(HeatmapGrid& grid) {
    QScrollBar* bar = nullptr;
    for (QScrollBar* b : grid.findChildren<QScrollBar*>())
        if (b->orientation() == Qt::Vertical && b->maximum() > 0) bar = b;
    if (!bar) return false;
    bar->setValue(bar->maximum());
    QCoreApplication::processEvents();
    return true;
}

}  // namespace

class HeatmapGridTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void drawsEveryHeadWithoutAWindow() {
        HeatmapGrid grid;
        grid.resize(900, 700);
        const attn::SceneSpec spec;
        grid.setResult(computeShared(spec));
        QCOMPARE(grid.headCount(), 4);
        const QString diff = test_support::compareWithCore(&grid, spec);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(grid.head(0)->titleText().contains(QStringLiteral("Head 1")));
        QVERIFY(grid.head(0)->titleText().contains(QStringLiteral("H ")));
    }

    void perHeadColourScalesKeepTheChosenColourMap() {
        // Each head's own scale (shared range off) draws with the chosen map, not QCustomPlot's
        // default blue-white gradient that a colour scale starts with.
        HeatmapGrid grid;
        grid.resize(900, 700);
        grid.setResult(computeShared(attn::SceneSpec{}));
        for (const ColorMapKind kind : {ColorMapKind::Viridis, ColorMapKind::Magma}) {
            HeatmapStyle style;
            style.colorMap = kind;
            style.sharedRange = false;
            grid.setStyle(style);
            QCPColorGradient want = makeGradient(kind);  // color() is not const
            for (int h = 0; h < grid.headCount(); ++h) {
                QVERIFY(grid.head(h)->colorScale());
                for (const double at : {0.0, 0.3, 1.0}) {
                    QCPColorGradient map = grid.head(h)->colorMap()->gradient();
                    QCPColorGradient scale = grid.head(h)->colorScale()->gradient();
                    const QRgb drawn = map.color(at, {0, 1});
                    QCOMPARE(drawn, want.color(at, {0, 1}));
                    QCOMPARE(scale.color(at, {0, 1}), drawn);
                }
            }
        }
    }

    void maskedCellsAreTransparentOverHatching() {
        HeatmapGrid grid;
        grid.resize(900, 700);
        attn::SceneSpec spec;
        spec.mask.kind = attn::MaskKind::Causal;
        grid.setResult(computeShared(spec));
        QCPColorMapData* d = grid.head(0)->colorMap()->data();
        QCOMPARE(int(d->alpha(5, 2)), 0);    // key 5 > query 2: masked
        QCOMPARE(int(d->alpha(2, 5)), 255);  // visible
        QCOMPARE(grid.head(0)->axisRect()->backgroundBrush().style(), Qt::BDiagPattern);
    }

    void longSequencesAreAggregatedToThePixels_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("max") << int(attn::Aggregation::Max);
        QTest::newRow("mean") << int(attn::Aggregation::Mean);
    }

    void longSequencesAreAggregatedToThePixels() {
        QFETCH(int, mode);
        HeatmapGrid grid;
        grid.resize(800, 600);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        HeatmapStyle style;
        style.aggregation = attn::Aggregation(mode);
        grid.setStyle(style);
        attn::SceneSpec spec = longSpec(700, 4);
        spec.mask.kind = attn::MaskKind::Causal;
        const SceneResultPtr result = computeShared(spec);
        // 4 × 700² weights: the model's jobs aggregate them, and the heads are drawn (one
        // render) when the last one's cells arrive.
        const quint64 renders = grid.renderCount();
        grid.setResult(result);
        QCOMPARE(grid.renderCount(), renders);
        for (int h = 0; h < 4; ++h)
            QVERIFY(grid.model()->pending(h));
        grid.waitForCells();
        QCOMPARE(grid.renderCount(), renders + 1);
        for (int h = 0; h < 4; ++h) {
            HeadHeatmap* hm = grid.head(h);
            QCPColorMapData* d = hm->colorMap()->data();
            const QSize budget = hm->cellBudget();
            QVERIFY2(d->keySize() <= budget.width() && d->valueSize() <= budget.height(),
                     qPrintable(QStringLiteral("%1×%2 cells for %3×%4 pixels")
                                    .arg(d->keySize())
                                    .arg(d->valueSize())
                                    .arg(budget.width())
                                    .arg(budget.height())));
            QVERIFY(d->keySize() < 700);
            const attn::HeadResult& hr = result->heads[std::size_t(h)];
            const attn::Matrix masked = hr.masked_matrix();
            const attn::AggregatedGrid ref = attn::aggregate(
                hr.weights, &masked, budget.height(), budget.width(), attn::Aggregation(mode));
            QCOMPARE(d->keySize(), ref.cols);
            for (int r = 0; r < ref.rows; r += 7)
                for (int c = 0; c < ref.cols; c += 5) {
                    QCOMPARE(d->alpha(c, r) == 0, ref.isMasked(r, c));
                    if (!ref.isMasked(r, c)) QCOMPARE(d->cell(c, r), ref.at(r, c));
                }
            QVERIFY(hm->titleText().contains(attn::Aggregation(mode) == attn::Aggregation::Max
                                                 ? QStringLiteral("max of")
                                                 : QStringLiteral("mean of")));
        }
    }

    void layoutIsReadableForOneToSixteenHeads() {
        HeatmapGrid grid;
        grid.resize(1000, 700);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        for (int heads : {1, 2, 3, 4, 6, 8, 12, 16}) {
            attn::SceneSpec spec = longSpec(12, heads);
            spec.d_model = 96;  // divisible by every head count tried
            grid.setResult(computeShared(spec));
            QCoreApplication::processEvents();
            QCOMPARE(grid.headCount(), heads);
            for (int h = 0; h < heads; ++h) {
                const QSize s = grid.head(h)->size();
                QVERIFY2(s.width() >= 120 && s.height() >= 120,
                         qPrintable(QStringLiteral("%1 heads: %2×%3")
                                        .arg(heads)
                                        .arg(s.width())
                                        .arg(s.height())));
            }
        }
    }

    void onlyHeadsOnScreenReplotAndOthersWhenScrolledTo() {
        // 12 heads of 200 tokens scroll in a 1000 × 700 grid. A new result replots each head
        // on screen once; a head off screen is replotted when it is first painted.
        HeatmapGrid grid;
        attn::SceneSpec spec = scrollingSpec();
        QVERIFY(showScrolling(grid, spec));
        std::vector<int> replots(12, 0);
        for (int h = 0; h < 12; ++h)
            connect(grid.head(h), &QCustomPlot::afterReplot, this, [&replots, h] { ++replots[h]; });
        spec.temperature = 0.5f;
        grid.setResult(computeShared(spec));
        QCoreApplication::processEvents();
        int onScreen = 0;
        for (int h = 0; h < 12; ++h) {
            const bool seen = !grid.head(h)->visibleRegion().isEmpty();
            onScreen += seen ? 1 : 0;
            QCOMPARE(replots[h], seen ? 1 : 0);
        }
        QVERIFY2(onScreen >= 1 && onScreen < 12, qPrintable(QString::number(onScreen)));
        QVERIFY(scrollToEnd(grid));
        HeadHeatmap* last = grid.head(11);
        QVERIFY(!last->visibleRegion().isEmpty());
        QCOMPARE(replots[11], 1);
        // Drawn from the new result's cells (a blank buffer would show the white background):
        // the same pixels as a rendering that bypasses the buffers.
        const QImage shot = last->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QImage direct = last->toPixmap(last->width(), last->height())
                                  .toImage()
                                  .convertToFormat(QImage::Format_RGB32);
        const QRect cells = last->axisRect()->rect();
        QCOMPARE(shot.copy(cells), direct.copy(cells));
        QCOMPARE(replots[11], 1);
    }

    void headsOutOfViewAggregateWhenScrolledToUnderTheSameColourRange() {
        // A new result aggregates only the heads on screen; the others take the top of the
        // shared linear range from their statistics (their largest weight) and aggregate when
        // first painted, to the cells an immediate aggregation gives.
        HeatmapGrid grid;
        attn::SceneSpec spec = scrollingSpec();
        QVERIFY(showScrolling(grid, spec));
        HeadHeatmap* last = grid.head(11);
        QVERIFY(last->visibleRegion().isEmpty());
        const attn::AggregatedGrid before = last->cells();
        spec.temperature = 0.3f;
        const SceneResultPtr second = computeShared(spec);
        grid.setResult(second);
        QCoreApplication::processEvents();
        // Not aggregated while out of view: still the first result's cells.
        QCOMPARE(last->cells().values, before.values);
        double largest = 0;
        for (const attn::HeadResult& h : second->heads)
            largest = std::max(largest, double(h.weights.maxCoeff()));
        QCOMPARE(grid.sharedRange().upper, largest);
        QCOMPARE(grid.sharedRange().lower, 0.0);
        QVERIFY(scrollToEnd(grid));
        QVERIFY(!last->visibleRegion().isEmpty());
        const QSize budget = last->cellBudget();
        const attn::AggregatedGrid now = second->weights_blocks(
            11, 0, 200, 0, 200, budget.height(), budget.width(), attn::Aggregation::Max);
        QCOMPARE(last->cells().values, now.values);
        QVERIFY(last->cells().values != before.values);
        QCOMPARE(last->colorMap()->dataRange().upper, largest);
    }

    void headsOnAHiddenTabAggregateWhenTheTabIsShown() {
        // The window's Heads tab behind another: a new result aggregates none of its heads;
        // showing the tab draws them from the new result.
        QTabWidget tabs;
        auto* grid = new HeatmapGrid;
        tabs.addTab(grid, QStringLiteral("Heads"));
        tabs.addTab(new QWidget, QStringLiteral("Other"));
        tabs.resize(1000, 700);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        attn::SceneSpec spec = scrollingSpec();
        grid->setResult(computeShared(spec));
        QCoreApplication::processEvents();
        tabs.setCurrentIndex(1);
        QCoreApplication::processEvents();
        HeadHeatmap* first = grid->head(0);
        const attn::AggregatedGrid before = first->cells();
        spec.temperature = 0.3f;
        const SceneResultPtr next = computeShared(spec);
        grid->setResult(next);
        QCoreApplication::processEvents();
        QCOMPARE(first->cells().values, before.values);
        tabs.setCurrentIndex(0);
        QCoreApplication::processEvents();
        const QSize budget = first->cellBudget();
        QCOMPARE(first->cells().values, next->weights_blocks(0, 0, 200, 0, 200, budget.height(),
                                                             budget.width(), attn::Aggregation::Max)
                                            .values);
    }

    void rendersToImageAndSvg() {
        HeatmapGrid grid;
        grid.resize(800, 600);
        grid.setResult(computeShared(attn::SceneSpec{}));
        QImage image(800, 600, QImage::Format_ARGB32);
        image.fill(Qt::white);
        grid.paintTo(&image, image.rect());
        // Some pixel must carry a viridis colour (not white/grey).
        int coloured = 0;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4) {
                const QColor c = image.pixelColor(x, y);
                if (std::abs(c.red() - c.blue()) > 40) ++coloured;
            }
        QVERIFY(coloured > 100);

        QBuffer svg;
        svg.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&svg);
        gen.setSize(QSize(800, 600));
        gen.setViewBox(QRect(0, 0, 800, 600));
        grid.paintTo(&gen, QRect(0, 0, 800, 600));
        QVERIFY(svg.data().size() > 1000);
        QVERIFY(svg.data().contains("<svg"));
    }

    void followsADarkPalette() {
        HeatmapGrid grid;
        grid.resize(800, 600);
        grid.setResult(computeShared(attn::SceneSpec{}));
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(30, 30, 34));
        dark.setColor(QPalette::Base, QColor(20, 20, 24));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        grid.setPalette(dark);
        QCoreApplication::processEvents();
        HeadHeatmap* h = grid.head(0);
        QCOMPARE(h->xAxis->tickLabelColor(), QColor(230, 230, 230));
        const QImage image = h->toPixmap(300, 300).toImage();
        QVERIFY(image.pixelColor(2, 2).lightnessF() < 0.3);  // dark background, not white
    }

    void emptyResultIsHarmless() {
        HeatmapGrid grid;
        grid.setResult(nullptr);
        QCOMPARE(grid.headCount(), 0);
        grid.setSelection(Selection{1, 1, 0});
        grid.setMessage(QStringLiteral("nothing"));
    }
};

QTEST_MAIN(HeatmapGridTest)
#include "heatmap_grid_test.moc"
