// QtTest: one rule words every sentence about the controls' layer scope (issue 37, item 5). On a
// tiny 3-layer Qwen2 the Controls dock's "Apply in" box is set to "Layer 2 only" with the
// keyboard, and the Model dock's layer box walks layers 1–3 with typed numbers: the banner above
// the heads names Qwen2 (not GPT-2), says "in layer 2 only" as the undo step does (not "from
// layer 2 on"), and is gone in layer 2 itself. A BERT says it is bidirectional, not causal.
#include <QComboBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <functional>

#include "app_test_support.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/elided_label.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// The banner above the heads ("" while hidden).
QString banner(MainWindow& w) {
    auto* note = static_cast<ElidedLabel*>(w.heatmapGrid()->note());
    return note->isVisibleTo(w.heatmapGrid()) ? note->fullText() : QString();
}

/// Types LAYER into the Model dock's layer box and presses Enter, as a user does.
void typeLayer(fileio::ModelController* models, MainWindow& w, int layer) {
    QSpinBox* box = models->dock()->layerBox();
    QTest::mouseClick(box, Qt::LeftButton);
    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(box, QString::number(layer));
    QTest::keyClick(box, Qt::Key_Return);
    QTRY_COMPARE(int(w.scene()->spec().layer), layer - 1);
}

/// Chooses "Layer LAYER only" in the Controls dock's "Apply in" box with the arrow keys.
void scopeToLayer(MainWindow& w, int layer) {
    auto* scope = w.controlsDock()->findChild<QComboBox*>(QStringLiteral("scopeBox"));
    QVERIFY(scope);
    scope->setFocus();
    for (int i = scope->currentIndex(); i < layer; ++i)
        QTest::keyClick(scope, Qt::Key_Down);
    QCOMPARE(scope->currentText(), QStringLiteral("Layer %1 only").arg(layer));
    QCOMPARE(w.scene()->spec().model_layers, std::vector<int>{layer - 1});
}

/// W with the tiny folder WRITE writes opened from its folder and "the cat sat" typed; the
/// model controller, or nullptr with *ERROR.
fileio::ModelController* openTiny(MainWindow& w, const QTemporaryDir& dir,
                                  const std::function<QString(const QString&)>& write,
                                  QString* error) {
    *error = dir.isValid() ? write(dir.path()) : QStringLiteral("no temporary folder");
    if (!error->isEmpty()) return nullptr;
    fileio::ModelController* models = test_support::attachQuietModels(w);
    if (!models || !models->openModel(dir.path())) {
        *error = models ? models->lastError() : QStringLiteral("no model controller");
        return nullptr;
    }
    *error = test_support::typeSentence(w, QStringLiteral("the cat sat"));
    return error->isEmpty() ? models : nullptr;
}

}  // namespace

class ScopeBannerTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void everyScopeSentenceSaysTheSame() {
        QTemporaryDir dir;
        MainWindow w;
        QString error;
        fileio::ModelController* models = openTiny(
            w, dir,
            [](const QString& d) {
                return test_support::writeTinyFolder(
                    ATTN_LLAMA_TINY, d,
                    {QStringLiteral("11"), QStringLiteral("qwen2"), QStringLiteral("--layers"),
                     QStringLiteral("3")});
            },
            &error);
        QVERIFY2(models, qPrintable(error));
        scopeToLayer(w, 2);
        QCOMPARE(w.scene()->undoStack()->undoText(),
                 QStringLiteral("Apply the controls in layer 2 only"));
        typeLayer(models, w, 1);
        QCOMPARE(banner(w), QStringLiteral("Layer 1 runs as Qwen2 does (scaled, τ = 1, causal): "
                                           "the controls apply in layer 2 only."));
        typeLayer(models, w, 3);
        QCOMPARE(banner(w),
                 QStringLiteral("Layer 3 runs as Qwen2 does (scaled, τ = 1, causal) but sees the "
                                "change in layer 2: the controls apply in layer 2 only."));
        typeLayer(models, w, 2);
        QCOMPARE(banner(w), QString());
    }

    void aBidirectionalModelIsNotCalledCausal() {
        QTemporaryDir dir;
        MainWindow w;
        QString error;
        fileio::ModelController* models = openTiny(
            w, dir, [](const QString& d) { return test_support::writeTinyBert(d); }, &error);
        QVERIFY2(models, qPrintable(error));
        scopeToLayer(w, 2);
        typeLayer(models, w, 1);
        QCOMPARE(banner(w), QStringLiteral("Layer 1 runs as BERT does (scaled, τ = 1, "
                                           "bidirectional): the controls apply in layer 2 only."));
    }
};

QTEST_MAIN(ScopeBannerTest)
#include "scope_banner_test.moc"
