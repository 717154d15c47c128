// Every theory lens renders offscreen to a non-empty, non-uniform image; plotted numbers
// equal core's. Set ATTN_LENS_SHOTS=dir to also save the 1200×800 renders as PNG.
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <memory>

#include "app_test_support.hpp"
#include "attn/lenses/cost.hpp"
#include "attn/lenses/rank_collapse.hpp"
#include "attn/lenses/scaling.hpp"
#include "lenses/cost_lens.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "lenses/rank_collapse_lens.hpp"
#include "lenses/scaling_lens.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"

class LensRenderTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void registryKnowsEveryLens() {
        Scene scene;
        QCOMPARE(lensNames().size(), 8);
        for (const QString& name : lensNames()) {
            QVERIFY(!lensTitle(name).isEmpty());
            std::unique_ptr<QWidget> w(createLens(name, &scene, nullptr));
            QVERIFY2(w, qPrintable(name));
        }
        QVERIFY(createLens(QStringLiteral("nope"), &scene, nullptr) == nullptr);
    }

    void everyLensRendersNonUniform() {
        Scene scene;
        const QString dir = qEnvironmentVariable("ATTN_LENS_SHOTS");
        for (const QString& name : lensNames()) {
            std::unique_ptr<QWidget> w(createLens(name, &scene, nullptr));
            w->setAttribute(Qt::WA_DontShowOnScreen);
            w->resize(1200, 800);
            w->show();
            auto* panel = qobject_cast<LensPanel*>(w.get());
            QVERIFY(panel);
            panel->refresh();
            QVERIFY2(!panel->plots().isEmpty(), qPrintable(name));
            for (QCustomPlot* p : panel->plots())
                QVERIFY(p->plottableCount() > 0);
            QVERIFY2(!panel->readoutText().trimmed().isEmpty(), qPrintable(name));
            const QImage img = w->grab().toImage();
            QVERIFY(!img.isNull());
            QCOMPARE(img.size(), QSize(1200, 800));
            QVERIFY2(test_support::distinctColours(img) > 20, qPrintable(name));
            if (!dir.isEmpty()) {
                QDir().mkpath(dir);
                QVERIFY(img.save(dir + QStringLiteral("/lens-") + name + QStringLiteral(".png")));
            }
        }
    }

    void scalingPlotEqualsCore() {
        Scene scene;
        ScalingLens lens(&scene);
        lens.refresh();
        attn::lenses::ScalingConfig c;
        c.keys = 32;
        c.seed = 20240;
        c.trials = 32;
        const auto pts = attn::lenses::scaling_sweep(c);
        QCustomPlot* var = lens.plots().at(1);
        QCOMPARE(var->graph(0)->dataCount(), int(pts.size()));
        for (int i = 0; i < int(pts.size()); ++i) {
            QCOMPARE(var->graph(0)->data()->at(i)->key, double(pts[std::size_t(i)].d_k));
            QCOMPARE(var->graph(0)->data()->at(i)->value, pts[std::size_t(i)].var_unscaled);
        }
    }

    void costPlotEqualsHandCounts() {
        Scene scene;
        CostLens lens(&scene);
        lens.refresh();
        QCustomPlot* flops = lens.plots().at(0);
        const auto first = flops->graph(0)->data()->at(0);
        const auto n = attn::Index(std::llround(first->key));
        // Defaults: d_model 768, 12 heads, 4 kv-heads (GQA). Hand count of the projections:
        // Q and O 2·n·d² each, K and V 2·n·d·(kv·d_k) each; QKᵀ + AV = 4·n²·d.
        const double N = double(n), d = 768, kvdk = 4 * 64;
        QCOMPARE(first->value, 4 * N * d * d + 4 * N * d * kvdk);
        QCOMPARE(first->value, attn::lenses::attention_flops(n, 768, 12, 4).projections());
        QCOMPARE(flops->graph(1)->data()->at(0)->value, 4 * N * N * d);
        QCOMPARE(attn::lenses::crossover_length(768, 12, 4), 768.0 + 256.0);
        QVERIFY(lens.readoutText().contains(QStringLiteral("n* = 1024")));
    }

    void rankCollapseFollowsControls() {
        Scene scene;
        RankCollapseLens lens(&scene);
        auto spins = lens.findChildren<QSpinBox*>();
        QVERIFY(!spins.isEmpty());
        spins.front()->setValue(5);  // depth
        lens.refresh();
        attn::lenses::RankCollapseConfig c;
        c.depth = 5;
        const auto curve = attn::lenses::rank_collapse(c);
        QCustomPlot* p = lens.plots().front();
        QCOMPARE(p->graph(0)->dataCount(), 6);
        QCOMPARE(p->graph(1)->data()->at(5)->value, curve.residual[5]);
    }

    void followsSceneChanges() {
        Scene scene;
        std::unique_ptr<QWidget> w(createLens(QStringLiteral("entropy"), &scene, nullptr));
        auto* panel = qobject_cast<LensPanel*>(w.get());
        // A lens computes only in scheduler jobs: its first plot comes after it is shown.
        w->setAttribute(Qt::WA_DontShowOnScreen);
        w->show();
        test_support::settleAll(nullptr);
        const int before = panel->plots().front()->graphCount();
        QCOMPARE(before, 2 + int(scene.spec().heads));  // ceiling, random, one per head
        w->hide();
        attn::SceneSpec s = scene.spec();
        s.heads = 2;
        scene.setSpec(s, QStringLiteral("heads"));
        w->show();  // hidden panels defer the recompute to their next show
        QTRY_COMPARE(panel->plots().front()->graphCount(), 2 + 2);
    }

    void lensesRecomputeOnlyWhatTheSceneChanges() {
        Scene scene;
        std::unique_ptr<QWidget> cost(createLens(QStringLiteral("cost"), &scene, nullptr));
        std::unique_ptr<QWidget> entropy(createLens(QStringLiteral("entropy"), &scene, nullptr));
        auto* fixed = qobject_cast<LensPanel*>(cost.get());
        auto* follows = qobject_cast<LensPanel*>(entropy.get());
        QCOMPARE(fixed->inputs(), LensInputs::Controls);
        QCOMPARE(follows->inputs(), LensInputs::Scene);
        for (QWidget* w : {cost.get(), entropy.get()}) {
            w->setAttribute(Qt::WA_DontShowOnScreen);
            w->show();
        }
        test_support::settleAll(nullptr);  // the first computations, from the first show
        const int fixedBefore = fixed->computations();
        const int followsBefore = follows->computations();
        attn::SceneSpec s = scene.spec();
        s.heads = 2;
        scene.setSpec(s, QStringLiteral("heads"));
        // The scene lens recomputes on a worker; the controls lens is not touched.
        QTRY_COMPARE(follows->computations(), followsBefore + 1);
        QVERIFY(follows->lastComputedOffGuiThread());
        QCOMPARE(follows->plots().front()->graphCount(), 2 + 2);  // ceiling, random, 2 heads
        QCOMPARE(fixed->computations(), fixedBefore);
        // Hidden, the scene lens waits for its next show.
        entropy->hide();
        s.heads = 4;
        scene.setSpec(s, QStringLiteral("heads"));
        test_support::settleAll(nullptr);  // every job and deferred refresh has run: none
        QCOMPARE(follows->computations(), followsBefore + 1);
        entropy->show();
        QTRY_COMPARE(follows->computations(), followsBefore + 2);
        QCOMPARE(follows->plots().front()->graphCount(), 2 + 4);
        QCOMPARE(fixed->computations(), fixedBefore);
    }

    void alignmentFollowsSceneSentenceAndHeads() {
        Scene scene;
        std::unique_ptr<QWidget> w(createLens(QStringLiteral("alignment"), &scene, nullptr));
        auto* head = w->findChild<QComboBox*>(QString(), Qt::FindChildrenRecursively);
        QVERIFY(head);
        attn::SceneSpec s = scene.spec();
        s.heads = 2;
        s.text = "the cat sat";
        scene.setSpec(s, QStringLiteral("edit"));
        const auto edits = w->findChildren<QLineEdit*>();
        QVERIFY(edits.size() >= 2);
        QCOMPARE(edits.front()->text(), QStringLiteral("the cat sat"));
        const auto combos = w->findChildren<QComboBox*>();
        QCOMPARE(combos.back()->count(), 4);  // mean + 2 heads + max
        auto* panel = qobject_cast<LensPanel*>(w.get());
        panel->refresh();
        QVERIFY(panel->readoutText().contains(QStringLiteral("× 3")));
    }
};

QTEST_MAIN(LensRenderTest)
#include "lens_render_test.moc"
