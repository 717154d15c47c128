// QtTest: the Influence tab driven with real events (issue 39) on the tiny GPT-2 gpt2_tiny.py
// writes and on a tiny Phi-3 (decoder_tiny.py), whose gradients equal core's reverse pass (work
// past core's limit: influence_limit_test.cpp).
// A click on a token of a position's top 5 picks the target; every strip then equals core's
// attribution functions for the same ids, controls, position and token (float32 tolerance),
// with identities beside them (IG's sum against the logit's change, ALTI rows summing to 1,
// rollout's causal zeros); the head map and the selected head's row equal the reverse pass and
// the run; the faithfulness curves equal core's erasure curves and the agreement core's τ-b.
// Hover gives the number and Cancel stops integrated gradients and the erasure (the exports and
// the fit: influence_fit_test.cpp). GPL-3.0-or-later.
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app_test_support.hpp"
#include "attn/analysis/rollout.hpp"
#include "attn/attribution/attention_paths.hpp"
#include "attn/attribution/contributions.hpp"
#include "attn/attribution/faithfulness.hpp"
#include "attn/attribution/reverse_pass.hpp"
#include "attn/attribution/value_zeroing.hpp"
#include "attn/models/layer_description.hpp"
#include "attn/models/run.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"
#include "export/export_controller.hpp"
#include "influence_window.hpp"
#include "model/influence_model.hpp"
#include "model/view_state.hpp"
#include "tiny_folders.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_view.hpp"
#include "views/qcp.hpp"

namespace {

/// "" when GOT equals WANT to float32 precision relative to WANT's largest magnitude.
QString closeTo(const std::vector<double>& got, const std::vector<double>& want,
                const QString& what) {
    if (got.size() != want.size())
        return QStringLiteral("%1: %2 values, core %3").arg(what).arg(got.size()).arg(want.size());
    double scale = 1e-6;
    for (double v : want)
        scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= 1e-5 * scale))
            return QStringLiteral("%1[%2]: %3, core %4").arg(what).arg(i).arg(got[i]).arg(want[i]);
    return {};
}

QString closeTo(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
    return closeTo(got, want, QString::fromUtf8(what));
}

std::vector<double> rowOfD(const attn::MatrixD& m, attn::Index r) {
    return std::vector<double>(m.row(r).data(), m.row(r).data() + m.cols());
}

/// The values of the strip labelled LABEL.
std::vector<double> stripValues(const InfluenceStrips* strips, const QString& label) {
    for (const InfluenceStrips::Row& row : strips->rows())
        if (row.label == label) return row.values;
    return {};
}

}  // namespace

class InfluenceTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInfluenceTest"));
        QCOMPARE(test_support::writeTinyGpt2(gpt2_.path()), QString());
        QCOMPARE(test_support::writeTinyFolder(ATTN_CORE_TESTS_DIR "/decoder_tiny.py", phi3_.path(),
                                               {QStringLiteral("11"), QStringLiteral("phi3")}),
                 QString());
    }

    /// A top-5 token clicked; every strip against core's functions.
    void stripsEqualCore() {
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, gpt2_.path());
        QVERIFY(view);
        const influence::Result* r = view->model()->result();
        QVERIFY2(r, qPrintable(view->status()->text()));
        // The default: the last position's likeliest token.
        const attn::Index n = attn::Index(r->ids.size());
        QCOMPARE(r->position, n - 1);
        QCOMPARE(r->target, r->topIds.back()[0]);
        // A click on rank 2 of position 5's top 5.
        CellMap* picker = view->picker();
        QCOMPARE(picker->values().rows(), attn::Index(5));
        QTest::mouseClick(picker, Qt::LeftButton, {}, picker->cellCentre(1, 4));
        test_support::settleAll(w.computeService());
        r = view->model()->result();
        QCOMPARE(r->position, attn::Index(4));
        QCOMPARE(r->target, r->topIds[4][1]);

        const attn::SceneSpec spec = w.scene()->spec();
        const attn::model::Model& model = *spec.model->model;
        const std::vector<std::int32_t> ids = attn::model::checked_run_ids(spec);
        const attn::model::RunControls controls = attn::model::run_controls(spec);
        QVERIFY(ids == r->ids);
        const attn::Index p = 4;
        const std::int32_t t = r->target;
        const attn::model::Run run =
            attn::model::run(model, ids, controls, nullptr, nullptr, nullptr, p);
        // The top 5 at P (column 4): the softmax of the run's logits there, largest first.
        {
            const attn::Vector& z = run.logits;
            const double top = double(z.maxCoeff());
            double sum = 0;
            for (attn::Index v = 0; v < z.size(); ++v)
                sum += std::exp(double(z[v]) - top);
            for (int k = 0; k < 5; ++k) {
                const double want = std::exp(double(z[r->topIds[4][std::size_t(k)]]) - top) / sum;
                QVERIFY(std::abs(double(picker->values()(k, 4)) - want) < 1e-6);
                if (k > 0) QVERIFY(picker->values()(k, 4) <= picker->values()(k - 1, 4));
            }
            QCOMPARE(r->logit, double(z[t]));
        }
        InfluenceStrips* strips = view->strips();
        attn::attrib::GradientAsk ask;
        ask.gradient = ask.integrated = ask.attention = true;
        ask.steps = view->model()->steps();
        const attn::attrib::GradientScores g =
            attn::attrib::gradient_scores(model, ids, controls, p, t, ask);
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Saliency")), g.saliency, "saliency"),
                 QString());
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Input × gradient")),
                         g.input_x_gradient, "input × gradient"),
                 QString());
        const std::vector<double> ig = stripValues(strips, QStringLiteral("Integrated gradients"));
        QCOMPARE(closeTo(ig, g.integrated_gradients, "integrated gradients"), QString());
        // IG's completeness: the tokens' sum is the logit's change from a zero input, within
        // ig_delta, which is that difference.
        {
            const attn::Matrix x0 = model.embed(ids, 0);
            const double zero = attn::attrib::described_logit(
                model, attn::Matrix::Zero(x0.rows(), x0.cols()), controls, p, t);
            double sum = 0;
            for (double v : ig)
                sum += v;
            QVERIFY(std::abs(sum - (r->logit - zero) - r->igDelta) < 1e-3 * (1 + std::abs(sum)));
        }
        const attn::MatrixD last = attn::mean_heads(run.layers.back().heads);
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Last-layer attention")),
                         rowOfD(last, p), "attention"),
                 QString());
        const attn::MatrixD rolled = attn::attrib::attention_rollout(run);
        const std::vector<double> rollout =
            stripValues(strips, QStringLiteral("Attention rollout"));
        QCOMPARE(closeTo(rollout, rowOfD(rolled, p), "rollout"), QString());
        for (attn::Index j = p + 1; j < n; ++j)  // causal: nothing from later tokens
            QCOMPARE(rollout[std::size_t(j)], 0.0);
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Attention flow")),
                         rowOfD(attn::attrib::attention_flow(attn::attrib::mixed_layers(run)), p),
                         "flow"),
                 QString());
        const std::vector<double> alti = stripValues(strips, QStringLiteral("ALTI rollout"));
        QCOMPARE(
            closeTo(alti, rowOfD(attn::attrib::compose_layers(attn::attrib::alti(model, run)), p),
                    "ALTI rollout"),
            QString());
        double altiSum = 0;
        for (double v : alti)
            altiSum += v;
        QVERIFY(std::abs(altiSum - 1.0) < 1e-6);
        QCOMPARE(
            closeTo(
                stripValues(strips, QStringLiteral("Value zeroing")),
                rowOfD(attn::attrib::compose_layers(attn::attrib::value_zeroing(model, run)), p),
                "value zeroing"),
            QString());
        const std::vector<attn::Matrix> norms = attn::attrib::norm_based(model, run);
        const int L = model.info().layers, H = model.info().heads;
        std::vector<double> lastNorms(std::size_t(n), 0.0);
        for (int h = 0; h < H; ++h)
            for (attn::Index j = 0; j < n; ++j)
                lastNorms[std::size_t(j)] += double(norms[std::size_t((L - 1) * H + h)](p, j));
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Norm-based ‖αf‖")), lastNorms,
                         "norm-based"),
                 QString());

        // Hover over a saliency cell: its number.
        const QPoint cell = strips->cellCentre(0, 1);
        QHelpEvent help(QEvent::ToolTip, cell, strips->mapToGlobal(cell));
        QCoreApplication::sendEvent(strips, &help);
        QVERIFY2(QToolTip::text().contains(QString::number(g.saliency[1], 'g', 6)),
                 qPrintable(QToolTip::text()));
        // A click on the rollout strip explains the method.
        QTest::mouseClick(strips, Qt::LeftButton, {}, strips->cellCentre(4, 0));
        QVERIFY2(view->note()->text().contains(QStringLiteral("Abnar")),
                 qPrintable(view->note()->text()));

        // Attention × gradient: each head's sum, and a click on layer 2, head 1 shows its
        // query × key map and its attention row as the last strip.
        CellMap* heads = view->headMap();
        QCOMPARE(heads->values().rows(), attn::Index(L));
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                const double want = double(g.attention_x_gradient[std::size_t(l * H + h)].sum());
                QVERIFY(std::abs(double(heads->values()(l, h)) - want) <=
                        1e-5 * (1 + std::abs(want)));
            }
        view->pages()->setCurrentIndex(0);
        QTest::mouseClick(heads, Qt::LeftButton, {}, heads->cellCentre(1, 0));
        QCOMPARE(view->model()->layer(), 1);
        QCOMPARE(view->model()->head(), 0);
        QVERIFY(view->pairMap()->values().isApprox(g.attention_x_gradient[std::size_t(H)]));
        const auto& weights = run.layers[1].heads[0].weights;
        std::vector<double> row;
        for (attn::Index j = 0; j < n; ++j)
            row.push_back(double(weights(p, j)));
        QCOMPARE(closeTo(stripValues(strips, QStringLiteral("Attention L2 H1")), row, "head row"),
                 QString());

        // Faithfulness to 3 tokens: core's erasure curves, and the agreement core's τ-b.
        view->pages()->setCurrentIndex(1);
        QSpinBox* erasures = view->erasuresBox();
        erasures->setFocus();
        erasures->selectAll();
        QTest::keyClicks(erasures, QStringLiteral("3"));
        QTest::keyClick(erasures, Qt::Key_Return);
        QCOMPARE(view->model()->erasures(), 3);
        QTest::mouseClick(view->measureButton(), Qt::LeftButton);
        test_support::settleAll(w.computeService());
        const influence::Faithfulness* f = view->model()->faithfulness();
        QVERIFY(f);
        const std::vector<attn::Index> ranked = attn::attrib::ranked_positions(n, p, true);
        QCOMPARE(f->keys.size(), 9);
        for (int i = 0; i < f->keys.size(); ++i) {
            const influence::Strip* s = influence::stripOf(*r, f->keys[i]);
            const std::vector<double> want = attn::attrib::erasure_curve(
                model, ids, controls, p, t, attn::attrib::rank_by_magnitude(ranked, s->values), 3);
            QCOMPARE(closeTo(f->curves[std::size_t(i)], want, f->keys[i]), QString());
            QVERIFY(std::abs(f->curves[std::size_t(i)][0] - r->logit) <
                    1e-4 * (1 + std::abs(r->logit)));
        }
        std::vector<double> mean(4, 0.0);
        for (const auto& order : influence::randomOrders(ranked, InfluenceModel::kRandomOrders)) {
            const std::vector<double> c =
                attn::attrib::erasure_curve(model, ids, controls, p, t, order, 3);
            for (std::size_t k = 0; k < 4; ++k)
                mean[k] += c[k] / InfluenceModel::kRandomOrders;
        }
        QCOMPARE(closeTo(f->randomMean, mean, "random mean"), QString());
        QCOMPARE(view->faithPlot()->graphCount(), 3 + 9);
        QVERIFY(!view->curveTip(QPoint(int(view->faithPlot()->xAxis->coordToPixel(0)),
                                       int(view->faithPlot()->yAxis->coordToPixel(r->logit))))
                     .isEmpty());
        CellMap* agreement = view->agreementMap();
        QCOMPARE(agreement->values().rows(), attn::Index(9));
        for (int a = 0; a < 9; ++a)
            for (int b = 0; b < 9; ++b) {
                std::vector<double> x, y;
                for (attn::Index q : ranked) {
                    x.push_back(
                        influence::stripOf(*r, r->agreementKeys[a])->values[std::size_t(q)]);
                    y.push_back(
                        influence::stripOf(*r, r->agreementKeys[b])->values[std::size_t(q)]);
                }
                const double tau = attn::attrib::kendall_tau_b(x, y);
                const double got = double(agreement->values()(a, b));
                QVERIFY((std::isnan(tau) && std::isnan(got)) || std::abs(got - tau) < 1e-6);
            }
        w.scene()->undoStack()->setClean();
    }

    /// Cancel stops integrated gradients and the erasure: nothing is delivered.
    void cancelStopsTheJobs() {
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, gpt2_.path());
        QVERIFY(view);
        const auto before = view->model()->result();
        QSignalSpy delivered(view->model(), &InfluenceModel::resultChanged);
        QSpinBox* steps = view->stepsBox();
        steps->setFocus();
        steps->selectAll();
        QTest::keyClicks(steps, QStringLiteral("1024"));
        QTest::keyClick(steps, Qt::Key_Return);
        QVERIFY(view->model()->busy());
        QVERIFY(view->cancelButton()->isEnabled());
        QVERIFY(!view->progress()->isHidden());
        const JobHandle job = view->model()->job();
        QTest::mouseClick(view->cancelButton(), Qt::LeftButton);
        test_support::settleAll(w.computeService());
        QVERIFY(job->cancelled());
        QVERIFY(!view->model()->busy());
        QCOMPARE(delivered.count(), 0);
        QVERIFY(view->model()->result() == before);
        QVERIFY(view->status()->text().startsWith(QStringLiteral("Cancelled")));
        QVERIFY(view->progress()->isHidden());

        view->pages()->setCurrentIndex(1);
        QSignalSpy curves(view->model(), &InfluenceModel::faithfulnessChanged);
        QTest::mouseClick(view->measureButton(), Qt::LeftButton);
        QVERIFY(view->model()->busy());
        QTest::mouseClick(view->cancelButton(), Qt::LeftButton);
        test_support::settleAll(w.computeService());
        QCOMPARE(curves.count(), 0);
        QVERIFY(!view->model()->faithfulness());
        w.scene()->undoStack()->setClean();
    }

    /// Phi-3 (fused projections, longrope): the gradient strips equal core's reverse pass.
    void phi3GradientsEqualCore() {
        MainWindow w;
        InfluenceView* view =
            test_support::openInfluence(w, phi3_.path(), QStringLiteral("the cat sat on the mat"));
        QVERIFY(view);
        const influence::Result* r = view->model()->result();
        QVERIFY2(r, qPrintable(view->status()->text()));
        const attn::SceneSpec spec = w.scene()->spec();
        attn::attrib::GradientAsk ask;
        ask.gradient = ask.integrated = true;
        ask.steps = r->steps;
        const attn::attrib::GradientScores g = attn::attrib::gradient_scores(
            *spec.model->model, r->ids, attn::model::run_controls(spec), r->position, r->target,
            ask);
        QCOMPARE(closeTo(stripValues(view->strips(), QStringLiteral("Saliency")), g.saliency,
                         "saliency"),
                 QString());
        QCOMPARE(closeTo(stripValues(view->strips(), QStringLiteral("Integrated gradients")),
                         g.integrated_gradients, "integrated_gradients"),
                 QString());
        for (const InfluenceStrips::Row& row : view->strips()->rows())
            QVERIFY2(row.refusal.isEmpty() && !row.values.empty(), qPrintable(row.label));
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir gpt2_, phi3_;
};

QTEST_MAIN(InfluenceTest)
#include "influence_test.moc"
