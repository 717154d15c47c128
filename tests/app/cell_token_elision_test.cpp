// QtTest: a token written in a narrow cell stays readable, at 1280×800 and at 192 dpi
// (app.cell_token_elision_test_2x). In a tiny Marian's decoder logit lens (Interventions tab)
// `</s>` and `<pad>` were cut to "</…" and "<p…", and in a tiny GPT-2's top 5 (Influence tab) a
// byte token `<0xA8>` to "<…": an elision that keeps the bracket and drops what names the token.
// Every painted cell text keeps two of its token's letters or digits (all, when it has fewer).
// GPL-3.0-or-later.
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "drawn_texts.hpp"
#include "influence_window.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "marian_folder.hpp"
#include "seq2seq_window.hpp"
#include "views/cell_map.hpp"
#include "views/influence_view.hpp"
#include "views/interventions_tab.hpp"
#include "views/seq2seq_interventions_view.hpp"

namespace {

int readable(const QString& text) {
    return int(
        std::count_if(text.begin(), text.end(), [](QChar c) { return c.isLetterOrNumber(); }));
}

/// Each cell text MAP paints that keeps too little of its token, one line each; *SEEN counts
/// the cell texts painted.
QStringList unreadable(CellMap* map, int* seen) {
    QStringList out;
    const int cols = int(map->values().cols());
    for (const test_support::DrawnText& t : test_support::drawnTexts(map)) {
        const QPoint cell = map->cellAt(t.box.center().toPoint());
        if (cell.x() < 0) continue;  // a label, the title or the key
        ++*seen;
        const QString whole = map->texts().value(cell.x() * cols + cell.y());
        if (readable(t.text) < std::min(2, readable(whole)))
            out << QStringLiteral("“%1” drawn as “%2”").arg(whole, t.text);
    }
    out.removeDuplicates();
    return out;
}

}  // namespace

class CellTokenElisionTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void marianLens() {
        QTemporaryDir dir;
        const QString written = test_support::writeMarianFolder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        MainWindow w;
        QCOMPARE(test_support::openSeq2SeqRun(w, dir.path(), QSize(1280, 800)), QString());
        auto* tab = w.findChild<InterventionsTab*>();
        QVERIFY(tab);
        w.tabs()->setCurrentWidget(tab);
        CellMap* lens = tab->seq2seq()->lensMap();
        tab->seq2seq()->pages()->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(lens->isVisible() && lens->values().size() > 0, 60000);
        QVERIFY(lens->texts().contains(QStringLiteral("</s>")) ||
                lens->columnLabels().contains(QStringLiteral("</s>")));
        readable(lens);
        w.scene()->undoStack()->setClean();
    }

    void gpt2TopFive() {
        QTemporaryDir dir;
        QCOMPARE(test_support::writeTinyGpt2(dir.path()), QString());
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, dir.path());
        QVERIFY(view);
        readable(view->picker());
        w.scene()->undoStack()->setClean();
    }

  private:
    /// Every cell text MAP paints keeps its token readable (and some are painted).
    void readable(CellMap* map) {
        int seen = 0;
        const QStringList faults = unreadable(map, &seen);
        QVERIFY(seen > 0);
        QVERIFY2(faults.isEmpty(), qPrintable(faults.join(QStringLiteral("; "))));
    }
};

QTEST_MAIN(CellTokenElisionTest)
#include "cell_token_elision_test.moc"
