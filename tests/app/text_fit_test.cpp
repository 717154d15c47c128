// QtTest: no clipped text at 1280×800 (and at 192 dpi: ctest app.text_fit_test_2x runs it with
// QT_SCALE_FACTOR=2, a 2560×1600 screen). Every tab, every Theory lens and every Views view is
// shown on the synthetic scene, a BERT file with "Words, not pieces" ticked and the Marian
// cross-attention; every visible QLabel, button, check box and combo box must hold its text in
// its geometry (word wrap taken into account, rich text laid out as Qt lays it out), the
// two-line notes above and under the heads must show their whole text at rest (elision is for
// a readout that does not fit even two lines, its whole text then the tooltip), and the texts
// painted by the Model tab's grid (title, head and layer labels, colour legend) and the Lines
// view's title fit their rectangles inside the widget; a line edit too narrow for its text shows
// its beginning.
#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QStyleOptionComboBox>
#include <QTabWidget>
#include <QTextDocument>
#include <QToolButton>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "text_fit.hpp"
#include "views/elided_label.hpp"
#include "views/lines_view.hpp"
#include "views/model_grid_canvas.hpp"
#include "views/qcp.hpp"

class TextFitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeTextFitTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void everyTab_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("words");
        QTest::newRow("synthetic") << QString() << false;
        QTest::newRow("bert-words")
            << test_support::fixture("bertviz_distilbert_headview.json") << true;
        QTest::newRow("marian") << QStringLiteral(ATTN_FIXTURES_DIR
                                                  "/../marian/marian_en_de_cross.json")
                                << false;
    }

    void everyTab() {
        QFETCH(QString, file);
        QFETCH(bool, words);
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        QCOMPARE(w.size(), QSize(1280, 800));
        if (!file.isEmpty()) {
            auto* files = w.findChild<fileio::FileController*>();
            files->setQuiet(true);
            QVERIFY(files->openFile(file));
        }
        test_support::settleAll(w.computeService());
        w.scene()->setSelection(Selection{1, 2, 0});
        if (words) {
            auto* box = w.findChild<QCheckBox*>(QStringLiteral("wordsBox"));
            QVERIFY(box);
            w.tabs()->setCurrentWidget(w.findChild<QWidget*>(QStringLiteral("viewsTab")));
            QTest::mouseClick(box, Qt::LeftButton);
            QVERIFY(w.scene()->spec().merge_words);
        }
        QStringList faults;
        for (int i = 0; i < w.tabs()->count(); ++i) {
            w.tabs()->setCurrentIndex(i);
            settle(w);
            const QString tab = w.tabs()->tabText(i).remove(QLatin1Char('&'));
            // Inner tabs (the lenses, the Views tab's views) each in turn.
            // The Theory tab is itself a QTabWidget: its lenses count as inner tabs too.
            auto inner = w.tabs()->widget(i)->findChildren<QTabWidget*>();
            if (auto* self = qobject_cast<QTabWidget*>(w.tabs()->widget(i))) inner.prepend(self);
            if (inner.isEmpty()) faults << check(w, tab);
            for (QTabWidget* sub : inner)
                for (int j = 0; j < sub->count(); ++j) {
                    sub->setCurrentIndex(j);
                    settle(w);
                    faults << check(w, tab + QLatin1Char('/') + sub->tabText(j));
                }
        }
        faults.removeAll(QString());
        faults.removeDuplicates();
        for (const QString& f : faults)
            qWarning("%s", qPrintable(f));
        QVERIFY2(
            faults.isEmpty(),
            qPrintable(QStringLiteral("%1 texts do not fit (listed above)").arg(faults.size())));
        w.scene()->undoStack()->setClean();
    }

  private:
    static void settle(MainWindow& w) {
        test_support::settleAll(w.computeService());
        for (QCustomPlot* plot : w.findChildren<QCustomPlot*>())
            if (plot->isVisible()) plot->replot(QCustomPlot::rpImmediateRefresh);
        QCoreApplication::processEvents();
    }

    /// Every visible text of the window that does not fit, one line each.
    static QStringList check(MainWindow& w, const QString& where) {
        QStringList out = test_support::widgetTextFaults(&w, where);
        auto name = [&](const QWidget* x, const QString& text) {
            return QStringLiteral("%1: %2 %3 “%4”")
                .arg(where, QString::fromLatin1(x->metaObject()->className()), x->objectName(),
                     text.left(80));
        };
        for (ModelGridCanvas* canvas : w.findChildren<ModelGridCanvas*>()) {
            if (!canvas->isVisible()) continue;
            QFont bold = canvas->font();
            bold.setBold(true);
            for (const ModelGridCanvas::Label& l : canvas->labels()) {
                const QFontMetricsF fm(l.bold ? bold : canvas->font());
                const bool inside =
                    QRectF(canvas->rect()).adjusted(-0.5, -0.5, 0.5, 0.5).contains(l.rect);
                if (fm.horizontalAdvance(l.text) > l.rect.width() + test_support::kSlack || !inside)
                    out << name(canvas, l.text) +
                               QStringLiteral(": needs %1 px in %2,%3 %4×%5 of %6×%7")
                                   .arg(fm.horizontalAdvance(l.text))
                                   .arg(l.rect.x())
                                   .arg(l.rect.y())
                                   .arg(l.rect.width())
                                   .arg(l.rect.height())
                                   .arg(canvas->width())
                                   .arg(canvas->height());
            }
        }
        for (LinesView* lines : w.findChildren<LinesView*>()) {
            if (!lines->isVisible()) continue;
            QFont bold = lines->font();
            bold.setBold(true);
            const int need = QFontMetrics(bold).horizontalAdvance(lines->title());
            if (need > lines->titleRect().width() + test_support::kSlack)
                out << name(lines, lines->title()) + QStringLiteral(": needs %1 px, has %2")
                                                         .arg(need)
                                                         .arg(lines->titleRect().width());
        }
        return out;
    }
};

QTEST_MAIN(TextFitTest)
#include "text_fit_test.moc"
