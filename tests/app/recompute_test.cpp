// What each control recomputes in the running application: temperature, scaling and mask re-run
// only the softmax from the shown result's raw scores (core's stage counters), display controls
// repaint without computing, selecting a query computes nothing n × n, and the rest recompute
// fully; every partial result is bit-identical to computing the scene afresh.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QTest>
#include <cstring>
#include <functional>

#include "app_test_support.hpp"
#include "attn/util/stage_counters.hpp"
#include "model/scheduler.hpp"
#include "widgets/controls_dock.hpp"

class RecomputeTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;
    ControlsDock* c_ = nullptr;

    struct Did {
        attn::StageCounts stages;
        quint64 requests = 0, renders = 0;
    };

    /// Waits for the compute service and every other background job (the lenses follow the
    /// scene on their own), including the refreshes their deliveries defer (on signals and the
    /// event queue, no clock).
    void quiet() { test_support::settleAll(w_->computeService()); }

    Did measure(const std::function<void()>& edit) {
        quiet();
        const attn::StageCounts before = attn::StageCounts::now();
        const quint64 requested = w_->computeService()->lastRequested();
        const quint64 renders = w_->heatmapGrid()->renderCount();
        edit();
        quiet();
        return {attn::StageCounts::now() - before,
                w_->computeService()->lastRequested() - requested,
                w_->heatmapGrid()->renderCount() - renders};
    }

    static bool sameBits(const attn::Matrix& a, const attn::Matrix& b) {
        return a.rows() == b.rows() && a.cols() == b.cols() &&
               std::memcmp(a.data(), b.data(), sizeof(float) * std::size_t(a.size())) == 0;
    }

    /// The shown result is, bit for bit, a fresh computation of the scene's spec. The window
    /// keeps no outputs (the math panel derives its query's): none is stored, and the derived
    /// ones are those a computation that stores them gives, to float rounding.
    void expectFreshNumbers(const char* what) {
        const SceneResultPtr shown = w_->result();
        const attn::SceneSpec& spec = w_->scene()->spec();
        const attn::SceneResult fresh = attn::compute_scene(
            spec, nullptr, attn::storage_for(spec), nullptr, attn::kOverviewCells, 1, false);
        const attn::SceneResult stored = attn::compute_scene(spec);
        QVERIFY2(shown && shown->heads.size() == fresh.heads.size(), what);
        QVERIFY2(shown->output.size() == 0 && fresh.output.size() == 0, what);
        QVERIFY2(stored.output.size() != 0, what);
        for (std::size_t h = 0; h < fresh.heads.size(); ++h) {
            QVERIFY2(sameBits(shown->heads[h].weights, fresh.heads[h].weights), what);
            QVERIFY2(shown->heads[h].output.size() == 0, what);
            QVERIFY2(sameBits(shown->heads[h].masked_matrix(), fresh.heads[h].masked_matrix()),
                     what);
            QCOMPARE(shown->stats[h].entropy, fresh.stats[h].entropy);
            QCOMPARE(shown->stats[h].entropy, stored.stats[h].entropy);
            for (attn::Index q : {attn::Index(0), shown->query_count() - 1}) {
                const Eigen::RowVectorXf o = shown->output_row(attn::Index(h), q);
                const float err = (o - stored.heads[h].output.row(q)).cwiseAbs().maxCoeff();
                QVERIFY2(err <= 1e-5f, what);
            }
        }
        const QString diff = test_support::compareWithCore(w_->heatmapGrid(), w_->scene()->spec());
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void init() {
        w_ = std::make_unique<MainWindow>();
        c_ = w_->controlsDock();
        test_support::showWindow(*w_);
    }
    void cleanup() { w_.reset(); }

    void softmaxControlsRerunOnlyTheSoftmax() {
        const auto heads = std::uint64_t(w_->scene()->spec().heads);
        const auto pickMask = [&](attn::MaskKind k) {
            c_->maskBox()->setCurrentIndex(c_->maskBox()->findData(int(k)));
        };
        const std::pair<const char*, std::function<void()>> edits[] = {
            {"temperature", [&] { c_->temperatureBox()->setValue(0.4); }},
            {"hard temperature", [&] { c_->temperatureBox()->setValue(0); }},
            {"scaling", [&] { c_->scaleBox()->setChecked(!c_->scaleBox()->isChecked()); }},
            {"causal mask", [&] { pickMask(attn::MaskKind::Causal); }},
            {"window mask", [&] { pickMask(attn::MaskKind::SlidingWindow); }},
            {"window width", [&] { c_->windowBox()->setValue(3); }},
        };
        for (const auto& [what, edit] : edits) {
            const Did d = measure(edit);
            QVERIFY2(d.requests == 1, what);
            QVERIFY2(d.stages.projections == 0, what);  // no X·W
            QVERIFY2(d.stages.score_heads == 0, what);  // no Q·Kᵀ: the raw scores are reused
            QVERIFY2(d.stages.softmax_heads == heads, what);
            QVERIFY2(d.renders >= 1, what);
            expectFreshNumbers(what);
        }
    }

    void inputControlsRecomputeFully() {
        const std::pair<const char*, std::function<void()>> edits[] = {
            {"seed", [&] { c_->seedBox()->setValue(c_->seedBox()->value() + 1); }},
            {"heads", [&] { c_->headsBox()->setCurrentIndex(c_->headsBox()->findData(2)); }},
            {"d_model", [&] { c_->dModelBox()->setValue(32); }},
            {"score", [&] { c_->scoreBox()->setCurrentIndex(2); }},
        };
        for (const auto& [what, edit] : edits) {
            const Did d = measure(edit);
            QVERIFY2(d.requests == 1, what);
            QVERIFY2(d.stages.projections == 1, what);
            QVERIFY2(d.stages.score_heads == std::uint64_t(w_->scene()->spec().heads), what);
            expectFreshNumbers(what);
        }
    }

    void displayControlsOnlyRepaint() {
        const std::pair<const char*, std::function<void()>> edits[] = {
            {"colour map", [&] { c_->colorMapBox()->setCurrentIndex(1); }},
            {"log scale", [&] { c_->logScaleBox()->setChecked(!c_->logScaleBox()->isChecked()); }},
            {"colour range",
             [&] { c_->sharedRangeBox()->setChecked(!c_->sharedRangeBox()->isChecked()); }},
        };
        for (const auto& [what, edit] : edits) {
            const Did d = measure(edit);
            QVERIFY2(d.requests == 0, what);  // nothing asked of the compute service
            QVERIFY2(d.stages.projections + d.stages.score_heads + d.stages.softmax_heads +
                             d.stages.score_rows ==
                         0,
                     what);
            QVERIFY2(d.renders >= 1, what);  // but every head repainted
        }
    }

    void selectingAQueryTouchesOnlyItsRow() {
        const Did stored = measure([&] { w_->scene()->setSelection(Selection{5, -1, 1}); });
        QCOMPARE(stored.requests, quint64(0));
        QCOMPARE(stored.stages.projections + stored.stages.score_heads +
                     stored.stages.softmax_heads + stored.stages.score_rows,
                 std::uint64_t(0));  // every stage is kept: rows are read, not computed
        // A scene that keeps only its weights recomputes the selected query's scores: rows of
        // that query, never a head.
        attn::SceneSpec longer;
        longer.text.clear();
        for (int i = 0; i < 1800; ++i)
            ((longer.text += 'w') += std::to_string(i % 97)) += ' ';
        w_->scene()->resetSpec(longer);
        test_support::settle(w_->computeService());
        QCOMPARE(ComputeService::storageFor(longer), attn::Storage::Weights);
        const Did rows = measure([&] { w_->scene()->setSelection(Selection{700, -1, 2}); });
        QCOMPARE(rows.requests, quint64(0));
        QCOMPARE(rows.stages.projections + rows.stages.score_heads + rows.stages.softmax_heads,
                 std::uint64_t(0));
        QVERIFY(rows.stages.score_rows >= 1);
        QVERIFY2(rows.stages.score_rows <= 64, qPrintable(QString::number(rows.stages.score_rows)));
    }
};

QTEST_MAIN(RecomputeTest)
#include "recompute_test.moc"
