// QtTest: a Gemma 2 model in the window, driven with real events (issue 38). A tiny random Gemma 2
// (tests/core/gemma_tiny.py: 3 layers, a window of 4 keys on layers 1 and 3, scores soft-capped at
// 2, 4 query / 2 key-value heads, a tokenizer.json of whole words) opens from Model ▸ (the Hugging
// Face cache list), a sentence of nine words is typed, and the drawn heads of every layer equal
// core's run; the head titles and the Model tab say each layer's kind (window or global), the
// math panel works through score → scaled → soft-capped → masked → softmax, and "Soft-capping
// off" (ticked for layer 2 only) gives the heads of core's run with soft-capping off there.
// GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/scene/model_scene.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/math_panel.hpp"
#include "views/model_grid.hpp"
#include "views/model_grid_canvas.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// LAYER's heads as the grid draws them against RUN's: "" when every visible weight is within
/// 1e-6 (float32 sums of the same products) and every hidden key is drawn empty or as 0.
QString compareLayer(HeatmapGrid* grid, const attn::model::Run& run, int layer) {
    const auto& heads = run.layers[std::size_t(layer)].heads;
    if (grid->headCount() != int(heads.size())) return QStringLiteral("head count differs");
    for (int h = 0; h < grid->headCount(); ++h) {
        const std::vector<double> drawn = test_support::drawn(grid->head(h));
        const attn::Matrix& w = heads[std::size_t(h)].weights;
        if (drawn.size() != std::size_t(w.size())) return QStringLiteral("head %1: size").arg(h);
        for (attn::Index q = 0; q < w.rows(); ++q)
            for (attn::Index k = 0; k < w.cols(); ++k) {
                const double d = drawn[std::size_t(q * w.cols() + k)];
                const bool same = std::isnan(d) ? w(q, k) == 0.f : std::abs(d - w(q, k)) <= 1e-6;
                if (!same)
                    return QStringLiteral("layer %1 head %2 (%3,%4): drawn %5, core %6")
                        .arg(layer + 1)
                        .arg(h + 1)
                        .arg(q)
                        .arg(k)
                        .arg(d)
                        .arg(w(q, k));
            }
    }
    return {};
}

double layerDifference(const attn::model::Run& a, const attn::model::Run& b, int layer) {
    double most = 0;
    const auto& x = a.layers[std::size_t(layer)].heads;
    const auto& y = b.layers[std::size_t(layer)].heads;
    for (std::size_t h = 0; h < x.size(); ++h)
        most = std::max(most, double((x[h].weights - y[h].weights).cwiseAbs().maxCoeff()));
    return most;
}

/// Shows LAYER (from 0) by typing it into the Model dock's layer box (from 1), then waits.
void showLayer(MainWindow& w, fileio::ModelController* models, int layer) {
    QSpinBox* layerBox = models->dock()->layerBox();
    layerBox->setFocus();
    layerBox->selectAll();
    QTest::keyClicks(layerBox, QString::number(layer + 1));
    QTest::keyClick(layerBox, Qt::Key_Return);
    QTRY_COMPARE(w.scene()->spec().layer, attn::Index(layer));
    test_support::settle(w.computeService());
}

}  // namespace

class GemmaModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeGemmaModelTest"));
        QCOMPARE(test_support::writeCachedModel(hub_, test_support::Tiny::Gemma2,
                                                QStringLiteral("tiny/gemma"), &model_),
                 QString());
    }

    void softCappedWindowedHeadsEqualCore() {
        MainWindow w;
        QString error;
        fileio::ModelController* models = test_support::openCachedModel(
            w, test_support::Tiny::Gemma2, QStringLiteral("tiny/gemma"), &error);
        QVERIFY2(models, qPrintable(error));
        const QString about = models->dock()->aboutText();
        QVERIFY2(about.contains(QStringLiteral("Gemma 2")), qPrintable(about));
        // Rotary positions and soft-capping: both controls show.
        QVERIFY(w.controlsDock()->rotaryOffBox()->isVisible());
        QVERIFY(w.controlsDock()->softcapOffBox()->isVisible());

        const QString text = QStringLiteral("the cat sat on the mat and then a");
        QCOMPARE(test_support::typeSentence(w, text), QString());
        const auto folder = w.scene()->spec().model;
        const std::vector<std::int32_t> ids = folder->tokenizer->encode(text.toStdString());
        QCOMPARE(ids.size(), std::size_t(9));
        const attn::model::Run plain = attn::model::run(*folder->model, ids);
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(compareLayer(grid, plain, 0), QString());
        // Layer 1 is a window layer: its titles say so, and query 9 sees keys 6–9 alone.
        QVERIFY2(grid->head(0)->titleText().contains(QStringLiteral(" · window 4")),
                 qPrintable(grid->head(0)->titleText()));
        QCOMPARE(plain.layers[0].heads[0].weights(8, 4), 0.f);

        // The math panel of query 9, head 1: the soft-capped stage between scaled and masked,
        // each soft-capped score 2 · tanh(scaled / 2).
        w.scene()->setSelection(Selection{8, -1, 0});
        QTRY_VERIFY(w.mathPanel()->toPlainText().contains(QStringLiteral("soft-capped")));
        const QString math = w.mathPanel()->toPlainText();
        QVERIFY2(math.contains(QStringLiteral("score → scaled → soft-capped → masked → softmax")),
                 qPrintable(math));
        const attn::HeadResult& head = plain.layers[0].heads[0];
        for (int k = 5; k < 9; ++k)
            QVERIFY2(math.contains(mathNumber(2.0 * std::tanh(double(head.scaled_row(8)(k)) / 2))),
                     qPrintable(QStringLiteral("key %1 in %2").arg(k).arg(math)));

        // Layer 2 is global; "Apply in: Layer 2 only", then soft-capping off from the mouse.
        showLayer(w, models, 1);
        QCOMPARE(compareLayer(grid, plain, 1), QString());
        QVERIFY2(grid->head(0)->titleText().contains(QStringLiteral(" · global")),
                 qPrintable(grid->head(0)->titleText()));
        QComboBox* scope = w.controlsDock()->scopeBox();
        scope->setFocus();
        QTest::keyClick(scope, Qt::Key_Down);
        QTest::keyClick(scope, Qt::Key_Down);
        QCOMPARE(w.scene()->spec().model_layers, std::vector<int>{1});
        QCheckBox* softcap = w.controlsDock()->softcapOffBox();
        QTest::mouseClick(softcap, Qt::LeftButton, {}, QPoint(6, softcap->height() / 2));
        QVERIFY(softcap->isChecked());
        QVERIFY(!w.scene()->spec().model_softcap);
        test_support::settle(w.computeService());
        attn::model::RunControls off;
        off.softcap = false;
        off.layers = {1};
        const attn::model::Run uncapped = attn::model::run(*folder->model, ids, off);
        QCOMPARE(compareLayer(grid, uncapped, 1), QString());
        QVERIFY2(layerDifference(uncapped, plain, 1) > 1e-3, "soft-capping off changed nothing");
        QVERIFY(layerDifference(uncapped, plain, 0) < 1e-7);
        // Layer 3 (a window layer again) sees layer 2's change.
        showLayer(w, models, 2);
        QCOMPARE(compareLayer(grid, uncapped, 2), QString());
        QCOMPARE(test_support::compareWithCore(grid, w.scene()->spec()), QString());

        // The Model tab: every layer, each with its window (4) or none (global).
        for (int i = 0; i < w.tabs()->count(); ++i)
            if (w.tabs()->tabText(i) == QStringLiteral("Model")) w.tabs()->setCurrentIndex(i);
        auto* modelGrid = w.findChild<ModelGrid*>();
        QVERIFY(modelGrid);
        QTRY_VERIFY_WITH_TIMEOUT(modelGrid->isVisible() && modelGrid->thumbnails().layers == 3,
                                 60000);
        test_support::settleAll(w.computeService());
        QTRY_COMPARE_WITH_TIMEOUT(int(modelGrid->thumbnails().images.size()), 12, 60000);
        QCOMPARE(modelGrid->thumbnails().windows, (std::vector<int>{4, 0, 4}));
        // Each row says its kind, so the alternation of window and global layers reads down.
        auto* canvas = modelGrid->findChild<ModelGridCanvas*>();
        QVERIFY(canvas);
        QStringList painted;
        for (const ModelGridCanvas::Label& label : canvas->labels())
            painted << label.text;
        for (const char* row : {"Layer 1 · window 4", "Layer 2 · global", "Layer 3 · window 4"})
            QVERIFY2(painted.contains(QString::fromUtf8(row)), row);

        w.scene()->undoStack()->setClean();  // no unsaved-changes prompt on close
    }

  private:
    QTemporaryDir hub_;
    QString model_;
};

QTEST_MAIN(GemmaModelTest)
#include "gemma_model_test.moc"
