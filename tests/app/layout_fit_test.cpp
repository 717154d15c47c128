// QtTest: the default window (1280×800) and a full-HD one (1920×1080) fit every tab. Heads keep
// a readable size with every token labelled (scrolling when there are many), a 14 × 7
// cross-attention head fills its slot with rectangular cells, the playground's planes and panels
// keep their room, every lens plot keeps its minimum with its title whole, its legend off the
// axes and its tick labels apart, and the docks show only on the tabs they serve.
#include <QDir>
#include <QDockWidget>
#include <QScrollBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "playground/playground_widget.hpp"
#include "playground/point_plane.hpp"
#include "playground/readout_panel.hpp"
#include "playground/regression_panel.hpp"
#include "playground/weights_chart.hpp"
#include "views/census_table.hpp"
#include "views/elided_label.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/model_grid.hpp"
#include "views/qcp.hpp"
#include "views/scroll_frame.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// Along-axis overlap of neighbouring tick labels (pixels), 0 when they are apart.
double worstTickOverlap(const QCPAxis* axis) {
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics fm(axis->tickLabelFont());
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    std::vector<std::pair<double, double>> spans;  // label extents along the axis, in pixels
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (!axis->range().contains(ticks[i])) continue;
        const double pos = axis->coordToPixel(ticks[i]);
        const double half = (horizontal ? fm.horizontalAdvance(labels[i]) : fm.height()) / 2.0;
        spans.emplace_back(pos - half, pos + half);
    }
    std::sort(spans.begin(), spans.end());
    double worst = 0;
    for (std::size_t i = 1; i < spans.size(); ++i)
        worst = std::max(worst, spans[i - 1].second - spans[i].first);
    return worst;
}

QTabWidget* theoryTabs(MainWindow& w) {
    return w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
}

PlaygroundWidget* playgroundOf(MainWindow& w) {
    return w.findChild<PlaygroundWidget*>();
}

void showTab(MainWindow& w, QWidget* tab) {
    w.tabs()->setCurrentWidget(tab);
    QCoreApplication::processEvents();
    test_support::settle(w.computeService());
}

}  // namespace

class LayoutFitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // attachDataIo offers recovery of an autosave: use a path no other test writes.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeLayoutFitTest"));
        // An autosave left by an interrupted run would be offered back in a modal dialog.
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void sizes_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    // Four heads of 13 tokens: all in view, every token labelled on both axes.
    void sizes() {
        QFETCH(QSize, size);
        MainWindow w;
        open(w, size);
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 4);
        for (int h = 0; h < 4; ++h) {
            HeadHeatmap* head = grid->head(h);
            head->replot(QCustomPlot::rpImmediateRefresh);
            QVERIFY(head->width() >= head->readableSize().width());
            QVERIFY(head->height() >= head->readableSize().height());
            QCOMPARE(head->xAxis->tickVector().size(), 13);
            QCOMPARE(head->yAxis->tickVector().size(), 13);
            QVERIFY2(head->axisRect()->width() >= 150, qPrintable(QString::number(h)));
        }
        // All four in view, nothing to scroll.
        QVERIFY(!grid->findChild<ScrollFrame*>()->verticalScrollBar()->isVisible());
        // The lines under and above the heads are never cut off at the edge: what does not
        // fit is elided, the whole line is the tooltip, and a hovered cell's weight stays.
        for (const char* name : {"cellReadout", "headsNote"}) {
            auto* line = grid->findChild<ElidedLabel*>(QLatin1String(name));
            QVERIFY(line && line->isVisible());
            QVERIFY2(
                line->fontMetrics().horizontalAdvance(line->text()) <= line->contentsRect().width(),
                name);
            if (line->isElided()) QCOMPARE(line->toolTip(), line->fullText());
        }
        HeadHeatmap* first = grid->head(0);
        QTest::mouseMove(
            first, QPoint(int(first->xAxis->coordToPixel(12)), int(first->yAxis->coordToPixel(1))));
        const QString weight = QString::number(double(w.result()->heads[0].weights(1, 12)), 'f', 4);
        QVERIFY2(grid->readout()->text().contains(weight), qPrintable(grid->readout()->text()));
        // Beside the heads: the controls and the selected query.
        QVERIFY(w.controlsDock()->isVisible());
        QVERIFY(w.queryDock()->isVisible());
    }

    // Twelve heads: at 1920×1080 each keeps its readable size, labels every token and all fit.
    // At 1280×800 one readable column would leave most of the width empty (issue #26 item 8):
    // two columns of narrower heads use it, their labels thinned (every other token, numbered),
    // and the heads scroll.
    void twelveHeads_data() { sizes_data(); }
    void twelveHeads() {
        QFETCH(QSize, size);
        MainWindow w;
        open(w, size);
        attn::SceneSpec spec = w.scene()->spec();
        spec.d_model = 96;
        spec.heads = 12;
        w.scene()->setSpec(spec, QStringLiteral("12 heads"));
        test_support::settle(w.computeService());
        QCoreApplication::processEvents();
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 12);
        const bool wide = size.height() >= 1000;
        QSet<int> columns;
        for (int h = 0; h < 12; ++h) {
            HeadHeatmap* head = grid->head(h);
            head->replot(QCustomPlot::rpImmediateRefresh);
            columns.insert(head->x());
            QVERIFY(head->height() >= head->readableSize().height());
            QVERIFY2(head->width() >=
                         (wide ? head->readableSize().width()
                               : head->readableMargins().width() + HeatmapGrid::kCompactAxis),
                     qPrintable(QString::number(h)));
            // 13 tokens at 11–13 px a label: at least 145 px of cells (120 when thinned).
            QVERIFY2(head->axisRect()->width() >= (wide ? 145 : 120) &&
                         head->axisRect()->height() >= (wide ? 140 : 120),
                     qPrintable(QStringLiteral("head %1: %2×%3")
                                    .arg(h)
                                    .arg(head->axisRect()->width())
                                    .arg(head->axisRect()->height())));
            // Square cells: a narrower head is a shorter one, both axes thinned alike.
            for (const QCPAxis* axis : {head->xAxis, head->yAxis}) {
                if (wide)
                    QCOMPARE(axis->tickVector().size(), 13);
                else
                    QVERIFY(axis->tickVector().size() >= 6);
            }
        }
        QVERIFY(columns.size() >= 2);
        auto* frame = grid->findChild<ScrollFrame*>();
        QVERIFY(frame);
        QCOMPARE(frame->verticalScrollBar()->isVisible(), !wide);
    }

    // GPT-2's twelve heads of its real 10-token sentence: every token labelled on every head.
    void realTwelveHeads() {
        MainWindow w;
        open(w, QSize(1280, 800),
             {QStringLiteral(ATTN_FIXTURES_DIR "/bertviz_gpt2_headview.json")});
        QTRY_COMPARE(w.heatmapGrid()->headCount(), 12);
        test_support::settle(w.computeService());
        QCoreApplication::processEvents();
        for (int h = 0; h < 12; ++h) {
            HeadHeatmap* head = w.heatmapGrid()->head(h);
            head->replot(QCustomPlot::rpImmediateRefresh);
            QCOMPARE(head->xAxis->tickVector().size(), 10);
            QCOMPARE(head->yAxis->tickVector().size(), 10);
        }
    }

    // A 14 × 7 cross-attention head fills its slot with rectangular cells.
    void rectangularHead() {
        MainWindow w;
        open(w, QSize(1280, 800));
        attn::SceneSpec spec = w.scene()->spec();
        spec.text =
            "one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen";
        spec.cross_text = "a b c d e f g";
        w.scene()->setSpec(spec, QStringLiteral("cross"));
        test_support::settle(w.computeService());
        QCoreApplication::processEvents();
        HeadHeatmap* head = w.heatmapGrid()->head(0);
        head->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(head->rowCount(), 14);
        QCOMPARE(head->columnCount(), 7);
        const QRect r = head->axisRect()->rect();
        const double cellW = r.width() / 7.0, cellH = r.height() / 14.0;
        // Square cells would draw it half as wide as tall; it may stretch them up to 2:1.
        QVERIFY2(cellW / cellH > 1.3 && cellW / cellH < 2.05,
                 qPrintable(QStringLiteral("cells %1×%2").arg(cellW).arg(cellH)));
        // Not the thin strip of square cells: at least 1.3× as wide as square cells would be.
        const double square = std::min(cellW, cellH);
        QVERIFY2(r.width() >= 1.3 * 7 * square,
                 qPrintable(QStringLiteral("%1×%2").arg(r.width()).arg(r.height())));
    }

    // The playground takes the whole width (no docks) and every part keeps its room.
    void playground_data() { sizes_data(); }
    void playground() {
        QFETCH(QSize, size);
        MainWindow w;
        open(w, size);
        PlaygroundWidget* pg = playgroundOf(w);
        QVERIFY(pg);
        showTab(w, pg);
        QVERIFY(!w.controlsDock()->isVisible());
        QVERIFY(!w.queryDock()->isVisible());
        QVERIFY(!w.sentenceDock()->isVisible());
        for (QCustomPlot* plane : {static_cast<QCustomPlot*>(pg->queryKeyPlane()),
                                   static_cast<QCustomPlot*>(pg->valuePlane())}) {
            plane->replot(QCustomPlot::rpImmediateRefresh);
            QVERIFY2(plane->width() >= 300 && plane->height() >= 300,
                     qPrintable(QStringLiteral("%1: %2×%3")
                                    .arg(plane->objectName())
                                    .arg(plane->width())
                                    .arg(plane->height())));
            QVERIFY(plane->axisRect()->width() >= 200);
        }
        QVERIFY(pg->weightsChart()->width() >= 220 && pg->weightsChart()->height() >= 160);
        QVERIFY(pg->readout()->width() >= 260 && pg->readout()->height() >= 160);
        QVERIFY(pg->regression()->width() >= 260 && pg->regression()->height() >= 160);
        // Nothing of the playground scrolls at these sizes.
        QCOMPARE(ScrollFrame::naturalSize(pg), pg->size());
    }

    // Every lens: plots at their minimum or more, whole titles, legends off the axes, tick
    // labels apart, and every lens tab in view without scroll arrows.
    void lenses_data() { sizes_data(); }
    void lenses() {
        QFETCH(QSize, size);
        MainWindow w;
        open(w, size);
        QTabWidget* theory = theoryTabs(w);
        QVERIFY(theory);
        showTab(w, theory);
        QVERIFY(!w.controlsDock()->isVisible());
        QVERIFY(!w.queryDock()->isVisible());
        QTabBar* bar = theory->tabBar();
        QCOMPARE(bar->count(), 8);
        QVERIFY2(bar->tabRect(bar->count() - 1).right() <= bar->width(),
                 qPrintable(QStringLiteral("last tab ends at %1 of %2")
                                .arg(bar->tabRect(bar->count() - 1).right())
                                .arg(bar->width())));
        for (int i = 0; i < theory->count(); ++i) {
            theory->setCurrentIndex(i);
            QCoreApplication::processEvents();
            auto* lens = qobject_cast<LensPanel*>(theory->widget(i));
            QVERIFY(lens);
            for (QCustomPlot* plot : lens->plots()) {
                plot->replot(QCustomPlot::rpImmediateRefresh);
                const QString where =
                    QStringLiteral("%1 %2").arg(lens->lensName()).arg(lens->plots().indexOf(plot));
                QVERIFY2(plot->width() >= LensPanel::kPlotMinimum.width() &&
                             plot->height() >= LensPanel::kPlotMinimum.height(),
                         qPrintable(QStringLiteral("%1: %2×%3")
                                        .arg(where)
                                        .arg(plot->width())
                                        .arg(plot->height())));
                QVERIFY2(plot->axisRect()->width() >= 150 && plot->axisRect()->height() >= 100,
                         qPrintable(where));
                // The title fits its cell, on one or two lines.
                auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
                QVERIFY(title);
                const QFontMetrics fm(title->font());
                for (const QString& line : title->text().split(QLatin1Char('\n')))
                    QVERIFY2(fm.horizontalAdvance(line) <= title->outerRect().width(),
                             qPrintable(where + QStringLiteral(": ") + line));
                if (plot->legend->visible()) {
                    QVERIFY2(!plot->legend->outerRect().intersects(plot->axisRect()->rect()),
                             qPrintable(where + QStringLiteral(": legend over the axes")));
                    // Whole, its frame included: drawRect of a QRect covers one more pixel
                    // right and below, which a legend at the plot's edge would lose.
                    const QRect frame = plot->legend->outerRect().adjusted(0, 0, 1, 1);
                    QVERIFY2(plot->visibleRegion().boundingRect().contains(frame),
                             qPrintable(where + QStringLiteral(": legend frame to y %1, x %2 in a "
                                                               "plot %3×%4")
                                                    .arg(frame.bottom())
                                                    .arg(frame.right())
                                                    .arg(plot->width())
                                                    .arg(plot->height())));
                    QVERIFY(plot->legend->outerRect().height() >=
                            plot->legend->minimumOuterSizeHint().height());
                }
                for (QCPAxis* axis : plot->axisRect()->axes()) {
                    if (!axis->visible() || !axis->tickLabels()) continue;
                    // Token labels too (the low-rank lens's rows), unless rotated: the measure
                    // below is of upright labels.
                    if (axis->ticker().dynamicCast<QCPAxisTickerText>() &&
                        axis->tickLabelRotation() != 0)
                        continue;
                    QVERIFY2(worstTickOverlap(axis) <= 0,
                             qPrintable(where +
                                        QStringLiteral(": ticks %1")
                                            .arg(axis->tickVectorLabels().join(QLatin1Char(' ')))));
                }
            }
        }
    }

    // The Model tab: thumbnails with room, beside the scene's controls.
    void model_data() { sizes_data(); }
    void model() {
        QFETCH(QSize, size);
        MainWindow w;
        open(w, size);
        auto* model = w.findChild<ModelGrid*>();
        QVERIFY(model);
        showTab(w, w.findChild<QWidget*>(QStringLiteral("modelTab")));
        QVERIFY(w.controlsDock()->isVisible());
        QVERIFY(!w.queryDock()->isVisible());
        // Beside the census table (four rows kept visible under it).
        QVERIFY2(model->width() >= 600 && model->height() >= 350,
                 qPrintable(QStringLiteral("%1×%2").arg(model->width()).arg(model->height())));
    }

    // The census under the thumbnails is never cut off at the bottom (issue #26 item 6): on
    // loaded data, with the data dock beside it, its note wraps and it still fits whole.
    void modelCensusWhole_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("synthetic") << QString();
        QTest::newRow("bert") << test_support::fixture("bertviz_distilbert_headview.json");
    }
    void modelCensusWhole() {
        QFETCH(QString, file);
        MainWindow w;
        open(w, QSize(1280, 800), file.isEmpty() ? QStringList{} : QStringList{file});
        if (!file.isEmpty()) QTRY_VERIFY(w.scene()->spec().is_loaded());
        auto* census = w.findChild<CensusTable*>();
        QVERIFY(census);
        showTab(w, w.findChild<QWidget*>(QStringLiteral("modelTab")));
        QTRY_VERIFY(census->table()->rowCount() > 0);
        // Read once the window settled, not after one event pass: thumbnails resize the grid.
        test_support::settleAll(w.computeService());
        QTableWidget* table = census->table();
        QVERIFY2(table->visibleRegion().boundingRect() == table->rect(),
                 qPrintable(QStringLiteral("table %1 high, %2 visible")
                                .arg(table->height())
                                .arg(table->visibleRegion().boundingRect().height())));
        QVERIFY2(census->height() >= census->minimumSizeHint().height(),
                 qPrintable(QStringLiteral("census %1 high, needs %2")
                                .arg(census->height())
                                .arg(census->minimumSizeHint().height())));
        // A header and at least three heads in view.
        QVERIFY(table->viewport()->height() >= 3 * table->rowHeight(0));
    }

    // A dock the user shows on a tab stays shown there, and only there.
    void docksFollowTheUser() {
        MainWindow w;
        open(w, QSize(1280, 800));
        PlaygroundWidget* pg = playgroundOf(w);
        showTab(w, pg);
        QVERIFY(!w.controlsDock()->isVisible());
        w.controlsDock()->toggleViewAction()->trigger();
        QVERIFY(w.controlsDock()->isVisible());
        showTab(w, w.heatmapGrid());
        QVERIFY(w.controlsDock()->isVisible() && w.queryDock()->isVisible());
        w.queryDock()->toggleViewAction()->trigger();
        showTab(w, pg);
        QVERIFY(w.controlsDock()->isVisible());
        QVERIFY(!w.queryDock()->isVisible());
        showTab(w, w.heatmapGrid());
        QVERIFY(!w.queryDock()->isVisible());
    }

  private:
    /// The window as the application builds it (with the data module's Model tab), shown.
    void open(MainWindow& w, const QSize& size, const QStringList& files = {}) {
        fileio::attachDataIo(&w, files);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        test_support::settle(w.computeService());
        QCoreApplication::processEvents();
        QCOMPARE(w.size(), size);
    }
};

QTEST_MAIN(LayoutFitTest)
#include "layout_fit_test.moc"
