// QtTest: every reader of the scene takes it through app/model's cache (issue #36 item 7). The
// Low rank and Lookup lenses get the scene's vectors from LayerCache::sceneFor: the first lens
// computes it once, off the GUI thread, and a second lens computes nothing; exporting a lens
// that has not computed yet computes in a scheduler job, never on the GUI thread; the window's
// model runs are kept in one RunCache that the shown layer, another layer, the logit lens and
// the attribution views share, and what they draw is core's numbers. GPL-3.0-or-later.
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <memory>
#include <vector>

#include "app_test_support.hpp"
#include "attn/interventions/attribution.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/lenses/low_rank.hpp"
#include "attn/scene/model_scene.hpp"
#include "export/view_numbers.hpp"
#include "interventions_window.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "lenses/low_rank_lens.hpp"
#include "model/layer_cache.hpp"
#include "model/run_cache.hpp"
#include "model/scene.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/interventions_tab.hpp"
#include "views/logit_lens_view.hpp"

namespace {

/// The low-rank lens's numbers as core computes them for spec's scene head 1 at rank r.
attn::lenses::LowRankView coreLowRank(const attn::SceneSpec& spec, int rank) {
    const attn::SceneResult r = attn::compute_scene(spec);
    const attn::MatrixD X = r.X.cast<double>();
    return attn::lenses::low_rank_view(attn::lenses::scene_bilinear(spec, 0), X, X, rank);
}

/// The values of M, sorted (a heat map's cells in any order).
std::vector<double> sortedValues(const attn::MatrixD& m) {
    std::vector<double> v(m.data(), m.data() + m.size());
    std::sort(v.begin(), v.end());
    return v;
}

}  // namespace

class SceneReadersCacheTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        const QString written = test_support::writeTinyGpt2(dir_.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
    }

    /// (a) A lens's vectors come through the cache: computed once, on a worker, and a second
    /// lens of the same scene (Lookup, another Low rank) computes nothing.
    void lensVectorsComeThroughTheCache() {
        Scene scene;
        LayerCache* cache = LayerCache::of(&scene);  // no ComputeService: nothing is held
        std::unique_ptr<QWidget> first(createLens(QStringLiteral("low-rank"), &scene));
        auto* lowRank = qobject_cast<LowRankLens*>(first.get());
        QVERIFY(lowRank);
        QCOMPARE(cache->scenesComputed(), 0);  // a constructor computes nothing
        lowRank->refresh();
        QCOMPARE(cache->scenesComputed(), 1);
        QVERIFY(cache->lastSceneOffGuiThread());
        QVERIFY(lowRank->lastComputedOffGuiThread());
        // The numbers are core's: the score error at the lens's rank in the readout.
        const attn::lenses::LowRankView v = coreLowRank(scene.spec(), lowRank->rank());
        const QString error = QString::number(v.errors[std::size_t(v.rank)], 'g', 3);
        QVERIFY2(lowRank->readoutText().contains(QStringLiteral("score error ") + error),
                 qPrintable(lowRank->readoutText()));

        std::unique_ptr<QWidget> lookup(createLens(QStringLiteral("lookup"), &scene));
        auto* lookupPanel = qobject_cast<LensPanel*>(lookup.get());
        lookupPanel->refresh();
        QVERIFY(lookupPanel->lastComputedOffGuiThread());
        std::unique_ptr<QWidget> second(createLens(QStringLiteral("low-rank"), &scene));
        auto* again = qobject_cast<LowRankLens*>(second.get());
        again->refresh();
        QCOMPARE(cache->scenesComputed(), 1);  // the second and third readers computed nothing
        QCOMPARE(again->readoutText(), lowRank->readoutText());

        // Another scene: computed once more, for every reader.
        attn::SceneSpec spec = scene.spec();
        spec.seed = 7;
        scene.setSpec(spec, QStringLiteral("seed"));
        again->refresh();
        lookupPanel->refresh();
        QCOMPARE(cache->scenesComputed(), 2);
        const attn::lenses::LowRankView seven = coreLowRank(spec, again->rank());
        QVERIFY(again->readoutText().contains(
            QString::number(seven.errors[std::size_t(seven.rank)], 'g', 3)));
    }

    /// (b) File ▸ Export numbers of a lens that has not computed yet: the scene is computed by
    /// a scheduler job, never on the GUI thread, and the numbers written are core's.
    void lensExportComputesOffTheGuiThread() {
        Scene scene;
        LayerCache* cache = LayerCache::of(&scene);
        std::unique_ptr<QWidget> w(createLens(QStringLiteral("low-rank"), &scene));
        auto* lens = qobject_cast<LowRankLens*>(w.get());
        QCOMPARE(lens->computations(), 0);
        exporting::PlotNumbers numbers;
        QVERIFY(exporting::plotNumbersOfView(lens, &numbers));
        QCOMPARE(lens->computations(), 1);
        QVERIFY(lens->lastComputedOffGuiThread());
        QCOMPARE(cache->scenesComputed(), 1);
        QVERIFY(cache->lastSceneOffGuiThread());
        // The full scores' cells are core's X W Xᵀ.
        const attn::lenses::LowRankView v = coreLowRank(scene.spec(), lens->rank());
        const exporting::Series* full = nullptr;
        for (const exporting::Series& s : numbers.series)
            if (s.plot.startsWith(QStringLiteral("Full scores"))) full = &s;
        QVERIFY(full);
        std::vector<double> drawn = full->z;
        std::sort(drawn.begin(), drawn.end());
        const std::vector<double> core = sortedValues(v.full_scores);
        QCOMPARE(drawn.size(), core.size());
        const double scale = v.full_scores.cwiseAbs().maxCoeff();
        for (std::size_t i = 0; i < core.size(); ++i)
            QVERIFY(std::abs(drawn[i] - core[i]) <= 1e-9 * scale);
        // Exported again with nothing changed: nothing computed.
        QVERIFY(exporting::plotNumbersOfView(lens, &numbers));
        QCOMPARE(lens->computations(), 1);
        QCOMPARE(cache->scenesComputed(), 1);
    }

    /// (a, c) A model's runs: the window's one RunCache. Another layer, the logit lens and
    /// the attribution run nothing again, a control toggled back reuses the kept run, and the
    /// views' numbers are core's (its own run, computed independently).
    void modelReadersShareTheWindowsRun() {
        MainWindow w;
        InterventionsTab* tab = nullptr;
        const QString opened =
            test_support::openInterventions(w, dir_.path(), QStringLiteral("the cat"), &tab);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        test_support::settleAll(w.computeService());
        LayerCache* cache = LayerCache::of(w.scene());
        const std::shared_ptr<RunCache> runs = cache->runs();
        const int before = runs->computed();
        QVERIFY(before >= 1);  // the shown layer's run, through the cache
        QVERIFY(w.result() && w.result()->run);
        QCOMPARE(runs->run(w.scene()->spec()), w.result()->run);

        // Another layer: the kept run.
        attn::SceneSpec spec = w.scene()->spec();
        spec.layer = 2;
        w.scene()->setSpec(spec, QStringLiteral("layer"));
        test_support::settleAll(w.computeService());
        QCOMPARE(w.result()->layer, attn::Index(2));
        QCOMPARE(runs->computed(), before);

        // The logit lens: the kept run; its cells are core's lens table of core's own run.
        QVERIFY(test_support::clickTabTitled(tab->pages()->tabBar(), QStringLiteral("Logit lens")));
        LogitLensView* lensView = tab->lens();
        QTRY_VERIFY_WITH_TIMEOUT(!lensView->table().cells.empty(), 30000);
        QCOMPARE(runs->computed(), before);
        const auto own = attn::model::scene_run(spec);  // core: computed afresh
        QVERIFY(own != w.result()->run);
        const attn::interv::LensTable table = attn::interv::lens_table(*spec.model->model, *own);
        QCOMPARE(lensView->map()->values().rows(), attn::Index(table.layers));
        for (attn::Index r = 0; r < table.layers; ++r)
            for (attn::Index c = 0; c < table.positions; ++c)
                QVERIFY(std::abs(lensView->map()->values()(r, c) -
                                 table.at(r, c).probabilities[0]) < 1e-6f);

        // The attribution: the kept run; its head map is core's attribution of the top token.
        QVERIFY(
            test_support::clickTabTitled(tab->pages()->tabBar(), QStringLiteral("Attribution")));
        AttributionView* attribution = tab->attribution();
        QTRY_VERIFY_WITH_TIMEOUT(attribution->topTokens()->count() == 10, 30000);
        QCOMPARE(runs->computed(), before);
        const attn::interv::Attribution core = attn::interv::attribute(
            *spec.model->model, own->ids, attribution->attribution().token, own->controls);
        QVERIFY((attribution->map()->values() - core.heads).cwiseAbs().maxCoeff() < 1e-5f);

        // A temperature change runs the model once; toggled back, the kept run is shown (the
        // heads on show: no other reader asks for the run meanwhile).
        w.tabs()->setCurrentWidget(w.heatmapGrid());
        test_support::settleAll(w.computeService());
        const std::shared_ptr<const attn::model::Run> first = w.result()->run;
        spec.temperature = 0.5f;
        w.scene()->setSpec(spec, QStringLiteral("hot"));
        test_support::settleAll(w.computeService());
        QCOMPARE(runs->computed(), before + 1);
        spec.temperature = 1.f;
        w.scene()->setSpec(spec, QStringLiteral("back"));
        test_support::settleAll(w.computeService());
        QCOMPARE(runs->computed(), before + 1);
        QCOMPARE(w.result()->run, first);
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(SceneReadersCacheTest)
#include "scene_readers_cache_test.moc"
