// QtTest: an encoder–decoder's docks and status lines where a user reads them. A tiny random
// Marian folder (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model and runs a typed
// source and target, at 1280×800 and 1920×1080 (at 192 dpi: app.seq2seq_docks_test_2x):
// - the Translation dock's status line is in view without scrolling, after a run and after a
//   translation (a longer message), and never broken inside the token </s>;
// - tabs clicked on the bar: the Translation and Loaded data docks hide on the Playground (it
//   has its own controls), the Loaded data dock on the Interventions and Influence tabs (they
//   pick their own component), and both come back on the Heads tab;
// - the Influence tab's strips show their method names whole and cells a user can read, with
//   the Loaded data dock shown there too;
// - the Interventions tab's Patching page shows its own status line, not the logit lens's.
// GPL-3.0-or-later.
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextLayout>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/scene/scene.hpp"
#include "io/data_dock.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/influence_model.hpp"
#include "model/scene.hpp"
#include "seq2seq_window.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_view.hpp"
#include "views/interventions_tab.hpp"
#include "views/scroll_frame.hpp"
#include "views/seq2seq_interventions_view.hpp"
#include "widgets/tab_strip.hpp"

namespace {

/// The window's own tab bar (the one holding "Heads"), as a user clicks it.
QTabBar* windowTabBar(MainWindow& w) {
    auto* strip = w.findChild<TabStrip*>();
    return strip ? strip->bar() : nullptr;
}

/// Clicks the tab titled TITLE on BAR, then lets the window settle.
void clickTab(MainWindow& w, QTabBar* bar, const QString& title) {
    for (int i = 0; i < bar->count(); ++i)
        if (bar->tabText(i) == title) {
            QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
            test_support::settleAll(w.computeService());
            return;
        }
    QFAIL(qPrintable(QStringLiteral("no tab %1").arg(title)));
}

/// "" when LABEL's text, wrapped as the label wraps it at widths from 40 px to its own, never
/// breaks a line inside TOKEN; else the line that does.
QString brokenToken(const QLabel* label, const QString& token) {
    QString text = label->text();
    for (int width = 40; width <= std::max(40, label->width()); width += 3) {
        QTextLayout layout(text, label->font());
        QTextOption option;
        option.setWrapMode(QTextOption::WordWrap);
        layout.setTextOption(option);
        layout.beginLayout();
        for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine())
            line.setLineWidth(width);
        layout.endLayout();
        for (int i = 0; i + 1 < layout.lineCount(); ++i) {
            const QTextLine line = layout.lineAt(i);
            QString shown = text.mid(line.textStart(), line.textLength());
            shown.remove(QChar(0x2060));  // the word joiners are not seen
            const QString trimmed = shown.trimmed();
            for (int cut = 1; cut < token.size(); ++cut)
                if (trimmed.endsWith(token.left(cut)) &&
                    QStringView(text)
                        .mid(line.textStart() + line.textLength())
                        .toString()
                        .remove(QChar(0x2060))
                        .startsWith(token.mid(cut)))
                    return QStringLiteral("at %1 px a line ends “%2”").arg(width).arg(shown);
        }
    }
    return {};
}

/// "" when LABEL lies in view in its dock's column without scrolling it, else why not.
QString outOfView(QLabel* label, QScrollArea* column) {
    if (!label->isVisible()) return QStringLiteral("the label is hidden");
    if (column->verticalScrollBar()->value() != 0) return QStringLiteral("the column is scrolled");
    const QRect shown(label->mapTo(column->viewport(), QPoint(0, 0)), label->size());
    if (!column->viewport()->rect().contains(shown))
        return QStringLiteral("the label at y %1–%2, the column shows 0–%3")
            .arg(shown.top())
            .arg(shown.bottom())
            .arg(column->viewport()->height());
    return test_support::cutBy(label);
}

/// Types SOURCE into DOCK's source box and clicks Translate: once the run is shown.
void translate(MainWindow& w, fileio::Seq2SeqDock* dock, const QString& source) {
    QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
    test_support::typeOver(dock->sourceEdit(), source);
    QTest::mouseClick(dock->translateButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    test_support::settleAll(w.computeService());
}

/// "" when VIEW's strips show every method's name whole and at least CELLS of the run's cells
/// beside them without scrolling, else what they show.
QString stripsFault(InfluenceView* view, int cells) {
    const InfluenceStrips* strips = view->strips();
    const auto* frame = view->findChild<ScrollFrame*>(QStringLiteral("influenceStripsFrame"));
    int names = 0;
    for (int row = 0; row < int(strips->rows().size()); ++row)
        names = std::max(names, strips->labelRect(row).right());
    const QRect row = strips->cellsRect(0);
    const double cell = double(row.width()) / double(strips->tokens().size());
    const int shown = int((frame->viewport()->width() - row.left()) / cell);
    if (names < frame->viewport()->width() && shown >= cells) return {};
    return QStringLiteral("%1 px of strips shown: names to %2, %3 cells of %4 px")
        .arg(frame->viewport()->width())
        .arg(names)
        .arg(shown)
        .arg(cell);
}

}  // namespace

class Seq2SeqDocksTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqDocksTest"));
        const QString written = test_support::writeMarianFolder(marian_.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
    }

    void statusLineInView_data() { test_support::windowSizes(); }
    void statusLineInView() {
        QFETCH(QSize, size);
        MainWindow w;
        const QString opened = test_support::openSeq2SeqRun(w, marian_.path(), size);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        fileio::Seq2SeqDock* dock = w.findChild<fileio::ModelController*>()->seq2seqDock();
        auto* column = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(dock->isVisible() && column);
        QString fault = outOfView(dock->statusLabel(), column);
        QVERIFY2(fault.isEmpty(), qPrintable(fault));
        QVERIFY(dock->statusLabel()->text().startsWith(QStringLiteral("Teacher-forced")));
        // A translation: a longer message, in view as well.
        translate(w, dock, QString::fromUtf8(attn::kDefaultSentence));
        QVERIFY2(dock->statusLabel()->text().startsWith(QStringLiteral("Translated")),
                 qPrintable(dock->statusLabel()->text()));
        fault = outOfView(dock->statusLabel(), column);
        QVERIFY2(fault.isEmpty(), qPrintable(fault));
        QCOMPARE(w.size(), size);
        w.scene()->undoStack()->setClean();
    }

    // The tiny model ends the default sentence at once: the status line names </s>.
    void endTokenWholeInTheStatusLine() {
        MainWindow w;
        QVERIFY2(test_support::openSeq2SeqRun(w, marian_.path(), {1280, 800}).isEmpty(),
                 "not opened");
        fileio::Seq2SeqDock* dock = w.findChild<fileio::ModelController*>()->seq2seqDock();
        translate(w, dock, QString::fromUtf8(attn::kDefaultSentence));
        QString shown = dock->statusLabel()->text();
        QVERIFY2(shown.remove(QChar(0x2060)).contains(QStringLiteral("</s>")), qPrintable(shown));
        const QString fault = brokenToken(dock->statusLabel(), QStringLiteral("</s>"));
        QVERIFY2(fault.isEmpty(), qPrintable(fault));
        w.scene()->undoStack()->setClean();
    }

    void docksFollowTheTab() {
        MainWindow w;
        const QString opened = test_support::openSeq2SeqRun(w, marian_.path(), {1280, 800});
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        QDockWidget* translation = w.findChild<fileio::ModelController*>()->seq2seqDock();
        QDockWidget* data = w.findChild<fileio::DataDock*>();
        QTabBar* bar = windowTabBar(w);
        QVERIFY(bar);
        QVERIFY(translation->isVisible() && data->isVisible());
        clickTab(w, bar, QStringLiteral("Playground"));
        QVERIFY(!translation->isVisible());
        QVERIFY(!data->isVisible());
        clickTab(w, bar, QStringLiteral("Influence"));
        QVERIFY(translation->isVisible());
        QVERIFY(!data->isVisible());
        clickTab(w, bar, QStringLiteral("Interventions"));
        QVERIFY(translation->isVisible());
        QVERIFY(!data->isVisible());
        clickTab(w, bar, QStringLiteral("Heads"));
        QVERIFY(translation->isVisible() && data->isVisible());
        // A dock the user closes on a tab stays closed there, the run going on.
        data->close();
        clickTab(w, bar, QStringLiteral("Playground"));
        clickTab(w, bar, QStringLiteral("Heads"));
        QVERIFY(!data->isVisible());
        QVERIFY(translation->isVisible());
        w.scene()->undoStack()->setClean();
    }

    // At the default size, the narrowest the tab is beside the docks.
    void influenceStripsReadable() {
        MainWindow w;
        const QSize size(1280, 800);
        QVERIFY2(test_support::openSeq2SeqRun(w, marian_.path(), size).isEmpty(), "not opened");
        clickTab(w, windowTabBar(w), QStringLiteral("Influence"));
        auto* view = w.findChild<InfluenceView*>();
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        // The tab's own docks: the Translation dock alone beside it, a long strip in view.
        QString fault = stripsFault(view, 20);
        QVERIFY2(fault.isEmpty(), qPrintable(fault));
        // Both docks, as a user who wants the Loaded data dock there too has them: the names
        // still whole, and cells beside them.
        QDockWidget* data = w.findChild<fileio::DataDock*>();
        data->toggleViewAction()->trigger();
        test_support::settleAll(w.computeService());
        QVERIFY(data->isVisible());
        QVERIFY(w.findChild<fileio::ModelController*>()->seq2seqDock()->isVisible());
        QCOMPARE(w.size(), size);
        fault = stripsFault(view, 8);
        QVERIFY2(fault.isEmpty(), qPrintable(fault));
        w.scene()->undoStack()->setClean();
    }

    void patchingShowsItsOwnStatus() {
        MainWindow w;
        QVERIFY2(test_support::openSeq2SeqRun(w, marian_.path(), {1280, 800}).isEmpty(),
                 "not opened");
        // The logit lens computes when the tab shows; then the Patching page is clicked.
        Seq2SeqInterventionsView* view = w.findChild<InterventionsTab*>()->seq2seq();
        QSignalSpy computed(view, &Seq2SeqInterventionsView::computed);
        clickTab(w, windowTabBar(w), QStringLiteral("Interventions"));
        QVERIFY(computed.count() > 0 || computed.wait(60000));
        test_support::settleAll(w.computeService());
        QVERIFY2(view->status()->text().startsWith(QStringLiteral("Logit lens")),
                 qPrintable(view->status()->text()));
        QTabBar* pages = view->pages()->tabBar();
        QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(2).center());
        QCOMPARE(view->pages()->currentIndex(), 2);
        QVERIFY2(!view->status()->text().contains(QStringLiteral("lens")),
                 qPrintable(view->status()->text()));
        // Patch with nothing typed: the page's own message, gone with the page.
        QTest::mouseClick(view->patchButton(), Qt::LeftButton);
        QVERIFY2(view->status()->text().startsWith(QStringLiteral("Patching")),
                 qPrintable(view->status()->text()));
        QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(0).center());
        QVERIFY2(view->status()->text().startsWith(QStringLiteral("Logit lens")),
                 qPrintable(view->status()->text()));
        QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(2).center());
        QVERIFY(view->status()->text().startsWith(QStringLiteral("Patching")));
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir marian_;
};

QTEST_MAIN(Seq2SeqDocksTest)
#include "seq2seq_docks_test.moc"
