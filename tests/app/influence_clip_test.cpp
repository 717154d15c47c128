// QtTest: nothing on the Influence tab is clipped, at 1280×800 and at 192 dpi
// (app.influence_clip_test_2x), beside the docks the tab shows: a tiny Marian's run (source and
// target typed into the Translation dock) and a tiny GPT-2's. Every label is whole in view (not
// cut by a scrolled frame), every text a map or the strips paint lies in the part of the widget
// in view (titles, refusals, the colour keys' numbers), and the strips keep a dozen cells in
// view (or all, when fewer). GPL-3.0-or-later.
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "drawn_texts.hpp"
#include "influence_window.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "marian_folder.hpp"
#include "model/influence_model.hpp"
#include "seq2seq_window.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_view.hpp"

namespace {

/// What of W's Influence tab (its first page and the strips) is cut, one line each.
QStringList clipped(MainWindow& w, InfluenceView* view) {
    QStringList out;
    const QRect window = w.rect();
    for (QWidget* x : view->findChildren<QWidget*>()) {
        if (!x->isVisible() || x->width() <= 0) continue;
        const QRect seen = x->visibleRegion().boundingRect();
        const QString name =
            QString::fromLatin1(x->metaObject()->className()) + QLatin1Char(' ') + x->objectName();
        // Sideways: a frame may scroll its content down, never past the window's right edge.
        const int left = x->mapTo(&w, QPoint(0, 0)).x();
        if (left < 0 || left + x->width() > window.width())
            out << name + QStringLiteral(": beyond the window's width");
        if (auto* l = qobject_cast<QLabel*>(x);
            l && !l->text().isEmpty() && seen.isEmpty() == false && seen.width() < l->width() - 1)
            out << name + QStringLiteral(": %1 of %2 px in view: “%3”")
                              .arg(seen.width())
                              .arg(l->width())
                              .arg(l->text().left(60));
        if (!qobject_cast<CellMap*>(x) && !qobject_cast<InfluenceStrips*>(x)) continue;
        for (const test_support::DrawnText& t : test_support::drawnTexts(x)) {
            if (t.text.trimmed().isEmpty()) continue;
            const QRectF box = t.box.adjusted(1, 0, -1, 0);  // rounding of glyph advances
            if (box.left() < seen.left() || box.right() > seen.right() + 1)
                out << name + QStringLiteral(": “%1” at x %2…%3, in view %4…%5")
                                  .arg(t.text.left(60))
                                  .arg(t.box.left())
                                  .arg(t.box.right())
                                  .arg(seen.left())
                                  .arg(seen.right());
        }
    }
    return out;
}

/// How many of the strips' cells are in view (their centres inside the drawn cells and the
/// part of the widget in view), and how many there are.
QPair<int, int> cellsInView(InfluenceStrips* strips) {
    const QRect seen = strips->visibleRegion().boundingRect();
    int in = 0;
    for (int c = 0; c < strips->tokens().size(); ++c) {
        const QPoint centre = strips->cellCentre(0, c);
        if (seen.contains(centre) && strips->cellsRect(0).contains(centre)) ++in;
    }
    return {in, int(strips->tokens().size())};
}

}  // namespace

class InfluenceClipTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void marianRun() {
        QTemporaryDir dir;
        const QString written = test_support::writeMarianFolder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        MainWindow w;
        QCOMPARE(test_support::openSeq2SeqRun(w, dir.path(), QSize(1280, 800)), QString());
        auto* view = w.findChild<InfluenceView*>();
        QVERIFY(view);
        w.tabs()->setCurrentWidget(view);
        test_support::settleAll(w.computeService());
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        QVERIFY(w.findChild<fileio::ModelController*>()->seq2seqDock()->isVisible());
        check(w, view);
    }

    void gpt2Run() {
        QTemporaryDir dir;
        QCOMPARE(test_support::writeTinyGpt2(dir.path()), QString());
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, dir.path());
        QVERIFY(view);
        QVERIFY(view->model()->result());
        check(w, view);
    }

  private:
    void check(MainWindow& w, InfluenceView* view) {
        QCOMPARE(w.size(), QSize(1280, 800));
        view->pages()->setCurrentIndex(0);
        QApplication::processEvents();
        const QStringList faults = clipped(w, view);
        for (const QString& fault : faults)
            qWarning("%s", qPrintable(fault));
        QVERIFY(faults.isEmpty());
        const auto [in, all] = cellsInView(view->strips());
        QVERIFY2(in >= std::min(all, 12),
                 qPrintable(QStringLiteral("%1 of %2 cells in view").arg(in).arg(all)));
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(InfluenceClipTest)
#include "influence_clip_test.moc"
