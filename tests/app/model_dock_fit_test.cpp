// QtTest: the Model dock keeps inside its width while a tiny Qwen2 folder generates 30 tokens
// (at 1280×800 and 1920×1080; ctest app.model_dock_fit_test_2x runs it at 192 dpi): the
// generated text wraps inside the dock, no panel's rect leaves the dock's viewport, nothing
// scrolls sideways when Stop takes the focus, and after Stop the status says the generation was
// cancelled (the step's line under it).
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/generate_panel.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "tiny_folders.hpp"

namespace {

/// What of DOCK's scrolled column leaves its viewport or scrolls sideways, or "".
QString overflow(QDockWidget* dock) {
    auto* scroll = dock->findChild<QScrollArea*>();
    if (!scroll || !scroll->widget()) return QStringLiteral("no scroll area");
    QWidget* viewport = scroll->viewport();
    QStringList out;
    if (scroll->horizontalScrollBar()->maximum() > 0 || scroll->horizontalScrollBar()->value() != 0)
        out << QStringLiteral("scrolls sideways (%1 of %2)")
                   .arg(scroll->horizontalScrollBar()->value())
                   .arg(scroll->horizontalScrollBar()->maximum());
    if (scroll->widget()->width() > viewport->width())
        out << QStringLiteral("column %1 px wide in a viewport of %2")
                   .arg(scroll->widget()->width())
                   .arg(viewport->width());
    for (QWidget* child : scroll->widget()->findChildren<QWidget*>()) {
        if (!child->isVisibleTo(scroll->widget()) || child->parentWidget() == nullptr) continue;
        if (qobject_cast<QScrollBar*>(child) || child->window() != dock->window()) continue;
        const QRect r(child->mapTo(viewport, QPoint(0, 0)), child->size());
        if (r.left() < 0 ||
            r.right() > viewport->width() - 1 + scroll->horizontalScrollBar()->value())
            out << QStringLiteral("%1 “%2” spans x %3…%4 of a %5 px viewport")
                       .arg(QString::fromLatin1(child->metaObject()->className()),
                            child->objectName())
                       .arg(r.left())
                       .arg(r.right())
                       .arg(viewport->width());
    }
    return out.join(QStringLiteral("; "));
}

/// Why LABEL's rich text does not fit its width, or "".
QString textMisfit(const QLabel* label) {
    QTextDocument doc;
    doc.setDefaultFont(label->font());
    doc.setDocumentMargin(0);
    doc.setHtml(label->text());
    doc.setTextWidth(label->contentsRect().width());
    if (doc.idealWidth() <= label->contentsRect().width() + 1) return {};
    return QStringLiteral("the text needs %1 px, the label is %2 px wide")
        .arg(doc.idealWidth())
        .arg(label->contentsRect().width());
}

}  // namespace

class ModelDockFitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        const QString error = test_support::writeTinyLlama(dir_.path(), QStringLiteral("qwen2"));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void generationStaysInsideTheDock_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void generationStaysInsideTheDock() {
        QFETCH(QSize, size);
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        w.resize(size);
        QVERIFY(models->openModel(dir_.path()));
        const QString typed = test_support::typeSentence(w, QStringLiteral("the cat sat"));
        QVERIFY2(typed.isEmpty(), qPrintable(typed));
        fileio::ModelDock* dock = models->dock();
        QTRY_VERIFY(dock->isVisible());
        auto* panel = dock->findChild<fileio::GeneratePanel*>();
        QVERIFY(panel);
        QCOMPARE(overflow(dock), QString());

        // 40 tokens asked; the worker is held after 30, so the window is seen mid-generation.
        panel->tokensBox()->setValue(40);
        panel->live().holdAfter(31);
        QSignalSpy steps(panel, &fileio::GeneratePanel::stepAdded);
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return steps.count() >= 30; }, 60000));
        QVERIFY(panel->running());
        QCoreApplication::processEvents();
        QCOMPARE(overflow(dock), QString());
        QCOMPARE(textMisfit(panel->textLabel()), QString());
        QVERIFY(panel->textLabel()->width() > 0);

        // Stop, with the mouse: it takes the focus, and nothing scrolls sideways.
        QTest::mouseClick(panel->stopButton(), Qt::LeftButton);
        panel->stopButton()->setFocus();
        Scheduler::instance().waitForIdle(panel);
        QCoreApplication::processEvents();
        QVERIFY(!panel->running());
        QCOMPARE(overflow(dock), QString());
        QCOMPARE(textMisfit(panel->textLabel()), QString());
        const QString status = panel->statusLabel()->text();
        QVERIFY2(
            status.startsWith(QStringLiteral("Stopped: generation cancelled after 30 token(s)")),
            qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("Step 30 of 30")), qPrintable(status));
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(ModelDockFitTest)
#include "model_dock_fit_test.moc"
