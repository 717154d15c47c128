// Thousands of random control changes: no crash, the final picture matches core, and memory
// does not grow.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <random>

#include "app_test_support.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// Resident set size in MiB from /proc/self/statm.
double rssMiB() {
    QFile f(QStringLiteral("/proc/self/statm"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    const QList<QByteArray> parts = f.readAll().split(' ');
    return parts.size() > 1 ? parts[1].toDouble() * 4096.0 / (1024.0 * 1024.0) : 0;
}

}  // namespace

class SoakTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void thousandsOfRandomChanges() {
        MainWindow w;
        test_support::showWindow(w);
        ControlsDock* c = w.controlsDock();
        std::mt19937 rng(1234);
        auto pick = [&](int n) { return int(rng() % unsigned(n)); };
        const QStringList words = {QStringLiteral("attention"), QStringLiteral("is"),
                                   QStringLiteral("all"),       QStringLiteral("you"),
                                   QStringLiteral("need"),      QStringLiteral("."),
                                   QStringLiteral("the"),       QStringLiteral("cat")};
        double baseline = 0;
        const int steps = 3000;
        for (int i = 0; i < steps; ++i) {
            // Half the time through the worker thread, so requests overlap.
            w.computeService()->setSyncThreshold(pick(2) ? 4e6 : 0);
            switch (pick(14)) {
                case 0:
                    c->scoreBox()->setCurrentIndex(pick(c->scoreBox()->count()));
                    break;
                case 1:
                    c->scaleBox()->setChecked(pick(2));
                    break;
                case 2:
                    c->temperatureBox()->setValue(pick(400) / 100.0);
                    break;
                case 3:
                    c->maskBox()->setCurrentIndex(pick(c->maskBox()->count()));
                    break;
                case 4:
                    c->windowBox()->setValue(pick(6));
                    break;
                case 5:
                    c->paddingBox()->setValue(pick(5));
                    break;
                case 6:
                    c->headsBox()->setCurrentIndex(pick(std::max(1, c->headsBox()->count())));
                    break;
                case 7:
                    c->dModelBox()->setValue(8 * (1 + pick(16)));
                    break;
                case 8:
                    c->positionalBox()->setCurrentIndex(pick(3));
                    break;
                case 9:
                    c->seedBox()->setValue(pick(100000));
                    break;
                case 10: {
                    QStringList t;
                    const int n = pick(30);  // sometimes empty: an error, then recovery
                    for (int k = 0; k < n; ++k)
                        t << words[pick(int(words.size()))];
                    w.tokenEditor()->editor()->setPlainText(t.join(QLatin1Char(' ')));
                    if (pick(2)) w.tokenEditor()->flush();
                    break;
                }
                case 11:
                    c->colorMapBox()->setCurrentIndex(pick(4));
                    break;
                case 12:
                    c->logScaleBox()->setChecked(pick(2));
                    break;
                default:
                    w.scene()->setSelection(Selection{pick(20) - 1, pick(20) - 1, pick(16)});
                    break;
            }
            if (pick(10) == 0) w.scene()->undoStack()->undo();
            QCoreApplication::processEvents();
            if (i == steps / 10) {
                test_support::settle(w.computeService());
                baseline = rssMiB();
            }
        }
        w.tokenEditor()->flush();
        test_support::settle(w.computeService());
        c->logScaleBox()->setChecked(false);  // log scales clamp what is drawn
        bool computable = true;
        try {
            attn::compute_scene(w.scene()->spec());
        } catch (const std::exception&) {
            computable = false;  // e.g. an empty sentence: the error is shown instead
        }
        if (computable) {
            const QString diff = test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec());
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
        const double end = rssMiB();
        qInfo("RSS after %d steps: %.1f MiB, at %d: %.1f MiB", steps, end, steps / 10, baseline);
        QVERIFY2(end < baseline + 80,
                 qPrintable(QStringLiteral("RSS grew from %1 to %2 MiB").arg(baseline).arg(end)));
    }
};

QTEST_MAIN(SoakTest)
#include "soak_test.moc"
