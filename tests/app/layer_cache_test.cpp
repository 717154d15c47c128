// AttnScope — every layer computed once per control change: the Model tab's thumbnails, the
// census and the rollout read one layer cache (issue #23). GPL-3.0-or-later.
#include <QApplication>
#include <QDoubleSpinBox>
#include <QTabWidget>
#include <QTest>

#include "app_test_support.hpp"
#include "attn/analysis/census.hpp"
#include "attn/analysis/rollout.hpp"
#include "attn/scene/scene_layers.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "model/layer_cache.hpp"
#include "views/census_table.hpp"
#include "views/model_grid.hpp"
#include "views/rollout_view.hpp"
#include "views/views_tab.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// Layers computed since `before`, per layer index (missing entries are 0).
std::vector<int> since(const std::vector<int>& before, const std::vector<int>& now) {
    std::vector<int> d(std::max(before.size(), now.size()), 0);
    for (std::size_t l = 0; l < d.size(); ++l)
        d[l] = (l < now.size() ? now[l] : 0) - (l < before.size() ? before[l] : 0);
    return d;
}

int total(const std::vector<int>& counts) {
    int n = 0;
    for (int c : counts)
        n += c;
    return n;
}

}  // namespace

class LayerCacheTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;
    fileio::FileController* files_ = nullptr;
    LayerCache* cache_ = nullptr;

    void showTab(QWidget* tab) {
        QVERIFY(tab);
        w_->tabs()->setCurrentWidget(tab);
        test_support::settleAll(w_->computeService());
    }
    void showTab(const char* objectName) {
        showTab(w_->findChild<QWidget*>(QString::fromLatin1(objectName)));
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void init() {
        w_ = std::make_unique<MainWindow>();
        files_ = fileio::attachDataIo(w_.get(), {});  // the Model tab with it
        files_->setQuiet(true);
        test_support::showWindow(*w_);
        // GPT-2 small's raw scores: 12 layers × 12 heads that the controls act on.
        QVERIFY(files_->openFile(test_support::fixture("gpt2_small_ex0.npz")));
        test_support::settleAll(w_->computeService());
        cache_ = LayerCache::of(w_->scene());
        QCOMPARE(cache_->computeService(), w_->computeService());
    }

    void cleanup() {
        w_->scene()->undoStack()->setClean();  // no unsaved-changes prompt on close
        w_.reset();
    }

    /// With the Model tab visible (thumbnails and census), a temperature change computes each
    /// layer once: the shown layer by the window's ComputeService, the other eleven by the cache.
    void controlChangeComputesEachLayerOnce() {
        showTab("modelTab");
        auto* grid = w_->findChild<ModelGrid*>();
        auto* census = w_->findChild<CensusTable*>();
        QVERIFY(grid && grid->isVisible() && census && census->isVisible());
        QVERIFY(cache_->current());
        const std::vector<int> before = cache_->computedLayers();
        w_->controlsDock()->temperatureBox()->setValue(1.5);
        test_support::settleAll(w_->computeService());
        const attn::SceneSpec& spec = w_->scene()->spec();
        QCOMPARE(spec.temperature, 1.5f);
        QVERIFY(cache_->current());
        const std::vector<int> d = since(before, cache_->computedLayers());
        QCOMPARE(int(d.size()), 12);
        for (int l = 0; l < 12; ++l)
            QCOMPARE(d[std::size_t(l)], l == int(spec.layer) ? 0 : 1);
        QCOMPARE(total(d), 11);

        // What the readers show is what each of them computed alone before (brute force).
        QCOMPARE(grid->thumbnails().layers, 12);
        QCOMPARE(grid->thumbnails().heads, 12);
        QCOMPARE(int(grid->thumbnails().images.size()), 144);
        const attn::Census whole = attn::census(spec);
        QCOMPARE(int(census->data().census.entries.size()), 144);
        for (std::size_t e = 0; e < whole.entries.size(); ++e)
            for (int p = 0; p < attn::kPatternCount; ++p) {
                const double a = census->data().census.entries[e].scores[std::size_t(p)];
                const double b = whole.entries[e].scores[std::size_t(p)];
                QVERIFY2(std::isnan(a) ? std::isnan(b) : std::abs(a - b) < 1e-5,
                         qPrintable(QStringLiteral("entry %1 pattern %2: %3 vs %4")
                                        .arg(e)
                                        .arg(p)
                                        .arg(a)
                                        .arg(b)));
            }
        QCOMPARE(int(census->data().thumbnails.size()), 144);
        // The rollout (Views tab) reads the same layers: showing it computes nothing.
        const std::vector<int> beforeRollout = cache_->computedLayers();
        showTab("viewsTab");
        w_->viewsTab()->tabs()->setCurrentWidget(w_->viewsTab()->rollout());
        test_support::settleAll(w_->computeService());
        QCOMPARE(total(since(beforeRollout, cache_->computedLayers())), 0);
        const std::vector<attn::MatrixD> rolled = attn::rollout(spec);
        const RolloutData& shown = w_->viewsTab()->rollout()->data();
        QCOMPARE(shown.layers.size(), rolled.size());
        QVERIFY((shown.layers.back() - rolled.back()).cwiseAbs().maxCoeff() < 1e-9);
        QVERIFY(std::abs(shown.layers.back().row(3).sum() - 1.0) < 1e-9);  // rows stay stochastic
    }

    /// Showing another layer changes no layer: nothing is computed again.
    void anotherLayerComputesNothing() {
        showTab("modelTab");
        const std::vector<int> before = cache_->computedLayers();
        w_->findChild<ModelGrid*>()->openHead(7, 2);
        test_support::settleAll(w_->computeService());
        QCOMPARE(w_->scene()->spec().layer, attn::Index(7));
        QVERIFY(cache_->current());
        QCOMPARE(total(since(before, cache_->computedLayers())), 0);
    }

    /// Behind another tab the layers are not computed; showing the tab computes them once.
    void hiddenReadersComputeNothing() {
        showTab("modelTab");
        showTab(w_->heatmapGrid());
        const std::vector<int> before = cache_->computedLayers();
        w_->controlsDock()->temperatureBox()->setValue(0.7);
        test_support::settleAll(w_->computeService());
        QCOMPARE(total(since(before, cache_->computedLayers())), 0);
        QVERIFY(!cache_->current());
        showTab("modelTab");
        QVERIFY(cache_->current());
        QCOMPARE(total(since(before, cache_->computedLayers())), 11);
    }
};

QTEST_MAIN(LayerCacheTest)
#include "layer_cache_test.moc"
