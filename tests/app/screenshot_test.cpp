// The window renders something worth looking at; with ATTN_SCREENSHOT_DIR set it also writes the
// README screenshots (docs/screenshots/), drawn by the app itself.
#include <QComboBox>
#include <QImage>
#include <QTest>

#include "app_test_support.hpp"
#include "widgets/controls_dock.hpp"

class ScreenshotTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void defaultScene() {
        MainWindow w;
        test_support::showWindow(w);
        w.scene()->setSelection(Selection{1, 9, 0});
        QCoreApplication::processEvents();
        const QImage image = w.grab().toImage();
        QCOMPARE(image.size(), QSize(1280, 800));
        QVERIFY(test_support::distinctColours(image) > 200);
        test_support::saveScreenshot(image, QStringLiteral("default-scene.png"));
    }

    void causalMaskFocusedHead() {
        MainWindow w;
        test_support::showWindow(w);
        ControlsDock* c = w.controlsDock();
        c->maskBox()->setCurrentIndex(c->maskBox()->findData(int(attn::MaskKind::Causal)));
        c->colorMapBox()->setCurrentIndex(c->colorMapBox()->findData(int(ColorMapKind::Magma)));
        test_support::settle(w.computeService());
        w.scene()->setSelection(Selection{10, 4, 1});
        w.heatmapGrid()->setFocusedHead(1);
        QCoreApplication::processEvents();
        const QImage image = w.grab().toImage();
        QVERIFY(test_support::distinctColours(image) > 200);
        test_support::saveScreenshot(image, QStringLiteral("causal-focused-head.png"));
    }

    void longSequenceIsAggregated() {
        MainWindow w;
        test_support::showWindow(w);
        attn::SceneSpec spec = w.scene()->spec();
        std::string text;
        for (int i = 0; i < 40; ++i)
            text += std::string(attn::kDefaultSentence) + ' ';
        spec.text = text;  // 520 tokens
        spec.mask.kind = attn::MaskKind::SlidingWindow;
        spec.mask.window = 24;
        w.scene()->setSpec(spec, QStringLiteral("long"));
        test_support::settle(w.computeService());
        QCoreApplication::processEvents();
        QVERIFY(w.heatmapGrid()->head(0)->cells().colFactor > 1);
        const QImage image = w.grab().toImage();
        QVERIFY(test_support::distinctColours(image) > 200);
        test_support::saveScreenshot(image, QStringLiteral("long-sequence-aggregated.png"));
    }
};

QTEST_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
