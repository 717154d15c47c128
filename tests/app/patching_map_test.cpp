// QtTest: a patching map a reader can trust, with real events on the tiny GPT-2 running "the
// cat sat" against "the dog sat". The colour range is the data's (a fraction of −8 is not drawn
// as −1), a clean − corrupted difference that is small beside the logits' spread is warned
// about above the maps (and the warning goes with a stable pair of answers), every position
// is labelled when upright labels fit and the positions where the prompts differ always, and
// hovering a cell shows its number to four decimals. GPL-3.0-or-later.
#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/interventions/patching.hpp"
#include "interventions_window.hpp"
#include "views/cell_map.hpp"

namespace {

/// Whether IMAGE has a dark (text) pixel within 3 px of column X between rows Y0 and Y1.
bool inkNear(const QImage& image, int x, int y0, int y1) {
    for (int y = std::max(0, y0); y < std::min(image.height(), y1); ++y)
        for (int dx = -3; dx <= 3; ++dx)
            if (x + dx >= 0 && x + dx < image.width() && qGray(image.pixel(x + dx, y)) < 110)
                return true;
    return false;
}

/// The columns of MAP, drawn at WIDTH, that have a label under them.
std::vector<int> labelled(CellMap* map, int width) {
    map->resize(width, map->height());
    const QImage image = map->grab().toImage();
    const int rows = int(map->values().rows()), cols = int(map->values().cols());
    const double h = map->cellCentre(1, 0).y() - map->cellCentre(0, 0).y();
    const int bottom = int(map->cellCentre(rows - 1, 0).y() + h / 2);
    std::vector<int> out;
    for (int c = 0; c < cols; ++c)
        if (inkNear(image, map->cellCentre(0, c).x(), bottom + 3,
                    bottom + 3 + QFontMetrics(map->font()).height()))
            out.push_back(c);
    return out;
}

}  // namespace

class PatchingMapTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopePatchingMapTest"));
        QVERIFY(dir_.isValid());
        QCOMPARE(test_support::writeTinyGpt2(dir_.path()), QString());
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        QCOMPARE(
            test_support::openInterventions(*w_, dir_.path(), QStringLiteral("the cat sat"), &tab_),
            QString());
    }

    void cleanup() { w_.reset(); }

    void theColourRangeIsTheDatas() {
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("42"), QStringLiteral("114")),
                 QString());
        PatchingView* view = tab_->patching();
        for (CellMap* map : {view->headMap(), view->residMap()}) {
            const attn::Matrix& v = map->values();
            const double largest = double(v.cwiseAbs().maxCoeff());
            QVERIFY2(largest > 2,
                     qPrintable(QString::number(largest)));  // the pair's maps reach ±8
            // The largest value is the key's end, and 1 is told apart from it.
            QCOMPARE(map->colorOf(largest), map->colorOf(2 * largest));
            QVERIFY(map->colorOf(largest) != map->colorOf(1.0));
            QVERIFY(map->colorOf(-largest) != map->colorOf(-1.0));
            // And so it is drawn: the cell of the largest |value|, near its corner.
            attn::Index r = 0, c = 0;
            v.cwiseAbs().maxCoeff(&r, &c);
            const QImage image = map->grab().toImage();
            const QPoint at = map->cellCentre(int(r), int(c));
            const QPoint step =
                map->cellCentre(1, std::min<int>(1, int(v.cols()) - 1)) - map->cellCentre(0, 0);
            const QPoint corner = at - QPoint(step.x() / 2 - 4, step.y() / 2 - 4);
            QCOMPARE(image.pixelColor(corner), map->colorOf(double(v(r, c))));
        }
    }

    void aSmallDifferenceIsWarnedAbove() {
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("42"), QStringLiteral("114")),
                 QString());
        PatchingView* view = tab_->patching();
        const attn::interv::PatchResult& r = view->result();
        const double span = r.clean_diff - r.corrupt_diff;
        auto* warning = view->findChild<QLabel*>(QStringLiteral("patchWarning"));
        QVERIFY(warning);
        QVERIFY(warning->isVisibleTo(view));
        QVERIFY2(warning->text().startsWith(QStringLiteral("Unstable")) &&
                     warning->text().contains(QString::number(span, 'f', 4)),
                 qPrintable(warning->text()));
        // The caption names what the fractions are of.
        auto* caption = view->findChild<QLabel*>(QStringLiteral("patchCaption"));
        QVERIFY(caption);
        for (const QString& part :
             {QStringLiteral("“the cat sat”"), QStringLiteral("“the dog sat”"),
              QStringLiteral("(42)"), QStringLiteral("(114)"),
              QString::number(r.clean_diff, 'f', 4), QString::number(r.corrupt_diff, 'f', 4)})
            QVERIFY2(caption->text().contains(part),
                     qPrintable(part + QStringLiteral(" | ") + caption->text()));
        // Answers the prompts separate well: no warning.
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("97"), QStringLiteral("116")),
                 QString());
        QVERIFY2(!warning->isVisibleTo(view), qPrintable(warning->text()));
    }

    void everyPositionIsLabelledAndTheChangedOnesAlways() {
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("42"), QStringLiteral("114")),
                 QString());
        CellMap* map = tab_->patching()->residMap();
        const int cols = int(map->values().cols());
        QCOMPARE(cols, 10);  // t|he|␣|c|a|t|␣|s|a|t; "c a t" → "d o g" at 3, 4, 5
        const int natural = map->width();
        const QFontMetrics fm(map->font());
        const int left =
            map->cellCentre(0, 0).x() - (map->cellCentre(0, 1).x() - map->cellCentre(0, 0).x()) / 2;
        const int right = natural - (map->cellCentre(0, cols - 1).x() +
                                     (map->cellCentre(0, 1).x() - map->cellCentre(0, 0).x()) / 2);
        const auto widthFor = [&](int cell) { return left + cols * cell + right; };
        std::vector<int> all(static_cast<std::size_t>(cols));
        std::iota(all.begin(), all.end(), 0);
        QCOMPARE(labelled(map, natural), all);
        // Too narrow for "he" side by side, wide enough for a line upright: still every one.
        const int upright = fm.height() + 4;
        QVERIFY(fm.horizontalAdvance(QStringLiteral("he")) + 6 > upright);
        QCOMPARE(labelled(map, widthFor(upright)), all);
        // Crowded: thinned, but the changed positions keep their labels.
        const std::vector<int> thin = labelled(map, widthFor(8));
        QVERIFY(int(thin.size()) < cols);
        for (int changed : {3, 4, 5})
            QVERIFY2(std::find(thin.begin(), thin.end(), changed) != thin.end(),
                     qPrintable(QString::number(changed)));
        map->resize(natural, map->height());
    }

    void hoverShowsTheExactNumber() {
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("42"), QStringLiteral("114")),
                 QString());
        PatchingView* view = tab_->patching();
        CellMap* map = view->headMap();
        const QPoint at = map->cellCentre(2, 1);
        QTest::mouseMove(map, at);
        QHelpEvent hover(QEvent::ToolTip, at, map->mapToGlobal(at));
        QApplication::sendEvent(map, &hover);
        QTRY_VERIFY(QToolTip::isVisible());
        const double v = double(view->result().heads(2, 1));
        QVERIFY2(QToolTip::text().contains(QString::number(v, 'f', 4)),
                 qPrintable(QString::number(v, 'f', 4) + QStringLiteral(" | ") + QToolTip::text()));
        QToolTip::hideText();
    }

  private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
    InterventionsTab* tab_ = nullptr;
};

QTEST_MAIN(PatchingMapTest)
#include "patching_map_test.moc"
