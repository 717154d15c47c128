// QtTest: a Llama-family model in the window, driven with real events (issue 24). A tiny random
// Llama (tests/core/llama_tiny.py: 2 layers, 4 query / 2 key-value heads, a tokenizer.json of
// whole words) opens from Model ▸ (the Hugging Face cache list), a sentence is typed, "Rotary
// positions off" is ticked for layer 2 only, and the drawn weights of both layers match core's
// run with those controls (layer 2 changed, layer 1 as the model computes it); the Heads tab
// titles and the Model tab's brackets show the key/value groups.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/scene/model_scene.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/model_grid.hpp"
#include "views/model_grid_canvas.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// Layer L's weights as the grid draws them against RUN's, head by head: "" when within 1e-6.
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
                // Causal: keys after the query are masked (transparent) and weigh 0 in the run.
                if (k > q ? !std::isnan(d) : std::abs(d - double(w(q, k))) > 1e-6)
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

/// The largest difference between two runs' weights in LAYER.
double layerDifference(const attn::model::Run& a, const attn::model::Run& b, int layer) {
    double most = 0;
    const auto& x = a.layers[std::size_t(layer)].heads;
    const auto& y = b.layers[std::size_t(layer)].heads;
    for (std::size_t h = 0; h < x.size(); ++h)
        most = std::max(most, double((x[h].weights - y[h].weights).cwiseAbs().maxCoeff()));
    return most;
}

}  // namespace

class LlamaModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeLlamaModelTest"));
        QCOMPARE(test_support::writeCachedModel(hub_, test_support::Tiny::Llama,
                                                QStringLiteral("tiny/llama"), &model_),
                 QString());
    }

    void rotaryOffInOneLayerAndTheKvGroups() {
        // Model ▸ lists the cache's Llama folder with its family; the entry opens it.
        MainWindow w;
        QString error;
        fileio::ModelController* models = test_support::openCachedModel(
            w, test_support::Tiny::Llama, QStringLiteral("tiny/llama"), &error);
        QVERIFY2(models, qPrintable(error));
        QVERIFY(w.scene()->spec().is_model());
        const QString about = models->dock()->aboutText();
        QVERIFY2(about.contains(QStringLiteral("Llama")) &&
                     about.contains(QStringLiteral("4 query / 2 KV heads")),
                 qPrintable(about));
        // A rotary family: the control shows.
        QVERIFY(w.controlsDock()->rotaryOffBox()->isVisible());

        // Typing a sentence runs the model once the typing pauses.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat on the mat")),
                 QString());
        const auto folder = w.scene()->spec().model;
        const std::vector<std::int32_t> ids = folder->tokenizer->encode("the cat sat on the mat");
        QCOMPARE(ids, (std::vector<std::int32_t>{1, 2, 3, 4, 1, 5}));
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 4);
        const attn::model::Run plain = attn::model::run(*folder->model, ids);
        QCOMPARE(compareLayer(grid, plain, 0), QString());

        // Grouped-query attention on the Heads tab: heads 1–2 share key/value head 1, 3–4 head 2.
        for (int h = 0; h < 4; ++h) {
            const QString title = grid->head(h)->titleText();
            QVERIFY2(title.startsWith(QStringLiteral("Head %1 · KV %2").arg(h + 1).arg(h / 2 + 1)),
                     qPrintable(title));
        }

        // "Apply in: Layer 2 only" (the scope box, from the keyboard), then rotary positions off.
        QComboBox* scope = w.controlsDock()->scopeBox();
        QVERIFY(scope->isVisible());
        scope->setFocus();
        QTest::keyClick(scope, Qt::Key_Down);
        QTest::keyClick(scope, Qt::Key_Down);
        QCOMPARE(scope->currentText(), QStringLiteral("Layer 2 only"));
        QCOMPARE(w.scene()->spec().model_layers, std::vector<int>{1});
        QCheckBox* rotary = w.controlsDock()->rotaryOffBox();
        QTest::mouseClick(rotary, Qt::LeftButton, {}, QPoint(6, rotary->height() / 2));
        QVERIFY(rotary->isChecked());
        QVERIFY(!w.scene()->spec().model_rotary);
        test_support::settle(w.computeService());

        // Core's run with rotary positions off in layer 2 alone, controls set here by hand.
        attn::model::RunControls off;
        off.rotary = false;
        off.layers = {1};
        const attn::model::Run scoped = attn::model::run(*folder->model, ids, off);
        // Layer 1 is outside the scope: drawn as the model computes it, unchanged.
        QCOMPARE(w.scene()->spec().layer, attn::Index(0));
        QCOMPARE(compareLayer(grid, scoped, 0), QString());
        QVERIFY(layerDifference(scoped, plain, 0) < 1e-7);
        // Layer 2 (typed into the Model dock's layer box, from 1): without rotary positions.
        QSpinBox* layerBox = models->dock()->layerBox();
        layerBox->setFocus();
        layerBox->selectAll();
        QTest::keyClicks(layerBox, QStringLiteral("2"));
        QTest::keyClick(layerBox, Qt::Key_Return);
        QTRY_COMPARE(w.scene()->spec().layer, attn::Index(1));
        test_support::settle(w.computeService());
        QCOMPARE(compareLayer(grid, scoped, 1), QString());
        QVERIFY2(layerDifference(scoped, plain, 1) > 1e-3, "rotary off changed nothing");
        QCOMPARE(test_support::compareWithCore(grid, w.scene()->spec()), QString());

        // The Model tab: every layer × head, the key/value groups bracketed below the grid (two
        // lines, one under heads 1–2 and one under heads 3–4, a gap between them).
        for (int i = 0; i < w.tabs()->count(); ++i)
            if (w.tabs()->tabText(i) == QStringLiteral("Model")) w.tabs()->setCurrentIndex(i);
        auto* modelGrid = w.findChild<ModelGrid*>();
        QVERIFY(modelGrid);
        QTRY_VERIFY_WITH_TIMEOUT(modelGrid->isVisible() && modelGrid->thumbnails().layers == 2,
                                 60000);
        test_support::settleAll(w.computeService());
        QTRY_COMPARE_WITH_TIMEOUT(int(modelGrid->thumbnails().images.size()), 8, 60000);
        QCOMPARE(modelGrid->thumbnails().kvGroups, 2);
        auto* canvas = modelGrid->findChild<ModelGridCanvas*>();
        QVERIFY(canvas);
        const QImage shot = canvas->grab().toImage();
        const QRectF first = canvas->thumbRect(1, 0), last = canvas->thumbRect(1, 3);
        const double cell = canvas->thumbRect(1, 1).left() - first.left();
        const double gridLeft = first.left() - (cell - first.width()) / 2;
        const double gridBottom = first.bottom() + (cell - first.height()) / 2;
        QVERIFY(cell > 0 && last.right() > first.right());
        const int ink = qGray(canvas->palette().color(QPalette::WindowText).rgb());
        const int paper = qGray(canvas->palette().color(QPalette::Window).rgb());
        QVERIFY(std::abs(ink - paper) > 120);
        const auto inked = [&](double x) {
            const qreal dpr = shot.devicePixelRatio();
            // The bracket is a 1-pixel antialiased line 4 pixels below the grid: a pixel either
            // side of it, at least a third of the way from the paper to the ink.
            for (int dy = -1; dy <= 1; ++dy) {
                const QPoint p(int(x * dpr), int((gridBottom + 4) * dpr) + dy);
                if (shot.valid(p) &&
                    std::abs(qGray(shot.pixel(p)) - paper) > std::abs(ink - paper) / 3)
                    return true;
            }
            return false;
        };
        QVERIFY2(inked(gridLeft + cell) && inked(gridLeft + 3 * cell), "no bracket under a group");
        QVERIFY2(!inked(gridLeft + 2 * cell), "the two groups' brackets run together");

        w.scene()->undoStack()->setClean();  // no unsaved-changes prompt on close
    }

  private:
    QTemporaryDir hub_;
    QString model_;
};

QTEST_MAIN(LlamaModelTest)
#include "llama_model_test.moc"
