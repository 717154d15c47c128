// A tour of every tab in the default 1280×800 window: each is drawn with its plots at a
// readable size (not blank, nothing squeezed under the minimum). With ATTN_SCREENSHOT_DIR set it
// also writes the README's tour (docs/screenshots/tour-*.png), drawn by the app itself.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QTabWidget>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "playground/playground_widget.hpp"
#include "views/model_grid.hpp"
#include "views/qcp.hpp"

class ScreenshotTourTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeTourTest"));
        // An autosave left by an interrupted run would be offered back in a modal dialog.
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void tour() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        w.scene()->setSelection(Selection{1, 9, 0});
        shoot(w, w.heatmapGrid(), QStringLiteral("heads"));

        auto* pg = w.findChild<PlaygroundWidget*>();
        QVERIFY(pg);
        shoot(w, pg, QStringLiteral("playground"));

        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        QVERIFY(theory);
        QCOMPARE(theory->count(), int(lensNames().size()));
        for (int i = 0; i < theory->count(); ++i) {
            theory->setCurrentIndex(i);
            auto* lens = qobject_cast<LensPanel*>(theory->widget(i));
            QVERIFY(lens);
            shoot(w, theory, QStringLiteral("theory-") + lens->lensName());
            for (QCustomPlot* plot : lens->plots())
                QVERIFY2(plot->width() >= LensPanel::kPlotMinimum.width() &&
                             plot->height() >= LensPanel::kPlotMinimum.height(),
                         qPrintable(lens->lensName()));
        }

        auto* model = w.findChild<ModelGrid*>();
        QVERIFY(model);
        // Any other tab (the Views tab, …) by its own name.
        for (int i = 0; i < w.tabs()->count(); ++i) {
            QWidget* tab = w.tabs()->widget(i);
            if (tab == w.heatmapGrid() || tab == pg || tab == theory ||
                tab->objectName() == QLatin1StringView("modelTab"))
                continue;
            shoot(w, tab, w.tabs()->tabText(i).remove(QLatin1Char('&')).toLower());
        }

        QWidget* modelTab = w.findChild<QWidget*>(QStringLiteral("modelTab"));
        QVERIFY(modelTab);
        w.tabs()->setCurrentWidget(modelTab);
        QTRY_VERIFY(!model->thumbnails().images.empty());
        shoot(w, modelTab, QStringLiteral("model"));
    }

  private:
    void shoot(MainWindow& w, QWidget* tab, const QString& name) {
        w.tabs()->setCurrentWidget(tab);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        test_support::settle(w.computeService());
        for (QCustomPlot* plot : w.findChildren<QCustomPlot*>())
            if (plot->isVisible()) plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = w.grab().toImage();
        QCOMPARE(image.size(), QSize(1280, 800));
        QVERIFY2(test_support::distinctColours(image) > 60, qPrintable(name));
        test_support::saveScreenshot(image,
                                     QStringLiteral("tour-") + name + QStringLiteral(".png"));
    }
};

QTEST_MAIN(ScreenshotTourTest)
#include "screenshot_tour_test.moc"
