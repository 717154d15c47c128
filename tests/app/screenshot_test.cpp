// The window renders something worth looking at; with ATTN_SCREENSHOT_DIR set it also writes the
// README screenshots (docs/screenshots/), drawn by the app itself.
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QTest>

#include "app_test_support.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// Distinct colours in a coarse sample: a blank or single-colour window has very few.
int distinctColours(const QImage& image) {
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

void save(const QImage& image, const char* name) {
    const QString dir = qEnvironmentVariable("ATTN_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QVERIFY(image.save(dir + QLatin1Char('/') + QLatin1StringView(name)));
}

}  // namespace

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
        QVERIFY(distinctColours(image) > 200);
        save(image, "default-scene.png");
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
        QVERIFY(distinctColours(image) > 200);
        save(image, "causal-focused-head.png");
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
        QVERIFY(distinctColours(image) > 200);
        save(image, "long-sequence-aggregated.png");
    }
};

QTEST_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
