// QtTest: an encoder–decoder's screens fit the window beside both of its docks (issue 40). A tiny
// random Marian folder (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model and runs a
// typed source and target, so the Translation dock (left) and the Loaded data dock (right) are
// shown. At 1280×800 and 1920×1080 (and at 192 dpi: app.seq2seq_fit_test_2x) the Alignment
// lens's plot needs no scroll bar, its colour bar's tick labels and name lie inside what the lens
// shows and its text column is not cut; the Influence tab's Export buttons and part picker lie
// inside every widget that holds them, on every page, for the encoder–decoder's run and for a
// decoder-only model's. GPL-3.0-or-later.
#include <QComboBox>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "influence_window.hpp"
#include "io/data_dock.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/influence_model.hpp"
#include "model/scene.hpp"
#include "seq2seq_window.hpp"
#include "tiny_folders.hpp"
#include "views/influence_view.hpp"
#include "views/qcp.hpp"
#include "views/scroll_frame.hpp"

namespace {

using test_support::cutBy;
using test_support::writeMarianFolder;

/// W shown at SIZE with the Marian folder DIR open and a source and target typed, Enter: ""
/// once the run is shown with both docks, else what went wrong.
QString openRun(MainWindow& w, const QString& dir, QSize size) {
    if (const QString error = test_support::openSeq2SeqRun(w, dir, size); !error.isEmpty())
        return error;
    auto* models = w.findChild<fileio::ModelController*>();
    if (!models->seq2seqDock()->isVisible() || !w.findChild<fileio::DataDock*>()->isVisible())
        return QStringLiteral("a dock is hidden");
    return {};
}

/// Every Export button (and the part picker, when shown) of the Influence tab's pages in view:
/// "" or the faults, one a line.
QString influenceFaults(MainWindow& w, InfluenceView* view) {
    QStringList faults;
    for (int page = 0; page < view->pages()->count(); ++page) {
        view->pages()->setCurrentIndex(page);
        test_support::settleAll(w.computeService());
        int shown = 0;
        for (QPushButton* b : view->findChildren<QPushButton*>())
            if (b->objectName().startsWith(QStringLiteral("influenceExport-")) && b->isVisible()) {
                ++shown;
                if (const QString cut = cutBy(b); !cut.isEmpty()) faults << cut;
            }
        // The strips' button and the page's (the Methods page has none).
        if (shown < (page < 3 ? 2 : 1))
            faults << QStringLiteral("page %1: %2 Export buttons shown").arg(page).arg(shown);
        if (view->componentBox()->isVisible())
            if (const QString cut = cutBy(view->componentBox()); !cut.isEmpty()) faults << cut;
    }
    view->pages()->setCurrentIndex(0);
    return faults.join(QLatin1Char('\n'));
}

}  // namespace

class Seq2SeqFitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqFitTest"));
        const QString written = writeMarianFolder(marian_.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        QCOMPARE(test_support::writeTinyGpt2(gpt2_.path()), QString());
    }

    void alignmentLensFits_data() { test_support::windowSizes(); }
    void alignmentLensFits() {
        QFETCH(QSize, size);
        MainWindow w;
        const QString opened = openRun(w, marian_.path(), size);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        auto* lens = w.findChild<LensPanel*>(QStringLiteral("lens_alignment"));
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentWidget(lens);
        test_support::settleAll(w.computeService());
        QVERIFY(lens->isVisible());
        QVERIFY2(lens->readoutText().contains(QStringLiteral("Cross-attention of the model")),
                 qPrintable(lens->readoutText()));

        // The plot at its readable size, whole in the frame: no scroll bar.
        auto* frame = lens->findChild<ScrollFrame*>();
        QVERIFY(frame);
        QCustomPlot* plot = lens->plots().front();
        QVERIFY2(!frame->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the plot scrolls: %1 px of %2 shown")
                                .arg(frame->viewport()->width())
                                .arg(plot->width())));
        QVERIFY(plot->width() >= LensPanel::kPlotMinimum.width());
        QVERIFY(plot->height() >= LensPanel::kPlotMinimum.height());
        QWidget* port = frame->viewport();
        const QRect shown(plot->mapTo(port, QPoint(0, 0)), plot->size());
        QVERIFY(port->rect().contains(shown));

        // The colour bar's tick labels and its name, right of the bar, inside the plot.
        QCPColorScale* scale = nullptr;
        for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
            if (auto* s = qobject_cast<QCPColorScale*>(e)) scale = s;
        QVERIFY(scale);
        QCPAxis* axis = scale->axis();
        const QFontMetrics fm(axis->tickLabelFont());
        int widest = 0;
        for (const QString& label : axis->tickVectorLabels())
            widest = std::max(widest, fm.horizontalAdvance(label));
        QVERIFY(widest > 0);  // there are labels
        const int labelsRight = axis->axisRect()->right() + axis->offset() + axis->tickLengthOut() +
                                axis->tickLabelPadding() + widest;
        const int nameRight =
            labelsRight + axis->labelPadding() + QFontMetrics(axis->labelFont()).height();
        QVERIFY2(plot->mapTo(port, QPoint(nameRight, 0)).x() <= port->width() &&
                     nameRight <= plot->width(),
                 qPrintable(QStringLiteral("the colour bar's labels end at %1, the plot at %2, "
                                           "%3 px of it shown")
                                .arg(nameRight)
                                .arg(plot->width())
                                .arg(port->width())));
        // The text column keeps its least width beside it.
        QScrollArea* side = nullptr;
        for (auto* area :
             frame->parentWidget()->findChildren<QScrollArea*>(Qt::FindDirectChildrenOnly))
            if (area != frame) side = area;
        QVERIFY(side && side->width() >= side->minimumWidth());
        // Nothing of the text column is cut at its right edge (it never scrolls sideways).
        QVERIFY2(side->widget()->width() <= side->viewport()->width(),
                 qPrintable(QStringLiteral("the text column is %1 px wide, %2 px shown")
                                .arg(side->widget()->width())
                                .arg(side->viewport()->width())));
        w.scene()->undoStack()->setClean();
    }

    void influenceExportsInView_data() { test_support::windowSizes(); }
    void influenceExportsInView() {
        QFETCH(QSize, size);
        MainWindow w;
        const QString opened = openRun(w, marian_.path(), size);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        auto* view = w.findChild<InfluenceView*>();
        w.tabs()->setCurrentWidget(view);
        test_support::settleAll(w.computeService());
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        QVERIFY(view->componentBox()->isVisible());
        const QString faults = influenceFaults(w, view);
        QVERIFY2(faults.isEmpty(), qPrintable(faults));
        w.scene()->undoStack()->setClean();
    }

    // A decoder-only model's run: the same buttons, with the Model dock beside the tab.
    void decoderOnlyInfluenceExportsInView_data() { test_support::windowSizes(); }
    void decoderOnlyInfluenceExportsInView() {
        QFETCH(QSize, size);
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, gpt2_.path());
        QVERIFY(view);
        w.resize(size);
        test_support::settleAll(w.computeService());
        QCOMPARE(w.size(), size);
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        QVERIFY(!view->componentBox()->isVisible());
        const QString faults = influenceFaults(w, view);
        QVERIFY2(faults.isEmpty(), qPrintable(faults));
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir marian_, gpt2_;
};

QTEST_MAIN(Seq2SeqFitTest)
#include "seq2seq_fit_test.moc"
