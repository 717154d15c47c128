// AttnScope — the "low-rank" lens. GPL-3.0-or-later.
#include "lenses/low_rank_lens.hpp"

#include <QComboBox>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/low_rank.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"

LowRankLens::LowRankLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("low-rank"), LensInputs::Scene, parent) {
    setExplanation(
        tr("<b>Where Q and K come from.</b> Luong's general score s = x W y<sup>T</sup> has a "
           "d×d matrix W. Its SVD W = UΣV<sup>T</sup> keeps the r largest singular values: "
           "W ≈ W<sub>Q</sub><sup>T</sup>W<sub>K</sub>, and then s ≈ (W<sub>Q</sub>x)·"
           "(W<sub>K</sub>y) — a dot product of r-dimensional queries and keys. A scene head "
           "has W = W<sub>Q,h</sub>W<sub>K,h</sub><sup>T</sup>, so its rank is at most "
           "d<sub>k</sub>: the singular values beyond d<sub>k</sub> are zero."),
        tr("W = UΣV<sup>T</sup>, W<sub>r</sub> = U<sub>r</sub>Σ<sub>r</sub>V<sub>r</sub>"
           "<sup>T</sup> = W<sub>Q</sub><sup>T</sup>W<sub>K</sub><br>"
           "W<sub>Q</sub> = √Σ<sub>r</sub>U<sub>r</sub><sup>T</sup>, W<sub>K</sub> = "
           "√Σ<sub>r</sub>V<sub>r</sub><sup>T</sup><br>"
           "‖W − W<sub>r</sub>‖<sub>F</sub>² = Σ<sub>i&gt;r</sub> σ<sub>i</sub>² "
           "(Eckart–Young)"));
    source_ = addCombo("matrix", tr("matrix W"),
                       {tr("scene head: W_Q,h W_K,hᵀ"), tr("random d_model × d_model")}, 0);
    head_ = addSpin("head", tr("head h"), 1, 64, 1);
    rank_ = addSlider("rank", tr("rank r"), 0, 64, 4, [](int r) { return QString::number(r); });
    sv_ = addPlot(0, 0, tr("Singular values of W"));
    err_ = addPlot(0, 1, tr("Error of the rank-r factorisation"));
    full_ = addPlot(1, 0, tr("Full scores x W yᵀ"));
    approx_ = addPlot(1, 1, tr("Rank-r scores"));

    sv_->xAxis->setLabel(tr("index i"));
    sv_->yAxis->setLabel(tr("singular value σ_i (log scale)"));
    setLogAxis(sv_->yAxis);
    sv_->yAxis->setNumberFormat(QStringLiteral("eb"));
    auto* g = addGraph(sv_, tr("σ_i"), seriesColor(0), Qt::SolidLine, 1);
    g->setLineStyle(QCPGraph::lsImpulse);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    auto* kept = addGraph(sv_, tr("kept (i ≤ r)"), seriesColor(1), Qt::SolidLine, 1);
    kept->setLineStyle(QCPGraph::lsNone);
    kept->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));

    err_->xAxis->setLabel(tr("rank r"));
    err_->yAxis->setLabel(tr("relative error (Frobenius)"));
    addGraph(err_, tr("scores ‖S − S_r‖/‖S‖"), seriesColor(1), Qt::SolidLine, 2.5);
    addGraph(err_, tr("matrix ‖W − W_r‖/‖W‖"), seriesColor(0), Qt::DashLine, 2);
    svMarker_ = new QCPItemStraightLine(sv_);
    errMarker_ = new QCPItemStraightLine(err_);
    for (auto* m : {svMarker_, errMarker_})
        m->setPen(QPen(seriesColor(6), 1, Qt::DotLine));

    for (QCustomPlot* p : {full_, approx_}) {
        p->xAxis->setLabel(tr("key token j"));
        p->yAxis->setLabel(tr("query token i"));
    }
    fullMap_ = LensHeatmap::create(full_, tr("score"), true);
    approxMap_ = LensHeatmap::create(approx_, tr("score"), true);
    refreshWhenShown();
}

int LowRankLens::rank() const {
    return rank_->value();
}

LensPanel::Compute LowRankLens::prepare() {
    const attn::SceneSpec spec = scene() ? scene()->spec() : attn::SceneSpec{};
    const bool sceneSource = source_->currentIndex() == 0;
    head_->setMaximum(int(std::max<attn::Index>(1, spec.heads)));
    head_->setEnabled(sceneSource && spec.is_synthetic());  // a random W has no head
    const attn::Index h = head_->value() - 1;
    // The scene with its vectors from the window's cache: held, kept or computed there once.
    auto sceneOf = scene() ? LayerCache::of(scene())->sceneFor(spec, true)
                           : std::function<SceneResultPtr(attn::Progress&)>();
    // The scene's part (its embeddings and a head's bilinear form) runs on the worker.
    return [this, spec, sceneSource, h, sceneOf](attn::Progress& progress) -> Draw {
        using namespace attn::lenses;
        attn::MatrixD W, X;
        std::vector<std::string> tokens;
        QString what, note;
        try {
            const SceneResultPtr r = sceneOf ? sceneOf(progress) : nullptr;
            if (r && r->has_vectors) {
                X = r->X.cast<double>();
                tokens = r->q_tokens;
            }
        } catch (const attn::Error& e) {
            note = tr("<br><i>%1</i>").arg(QString::fromUtf8(e.what()));
        }
        if (sceneSource && !spec.is_synthetic()) {
            // Loaded weights and a model's run carry no W_Q, W_K here: the synthetic scene's
            // projections would be another model's, drawn under this one's name.
            note += spec.is_model()
                        ? tr("<br><i>Scene head: the model's W<sub>Q</sub>, W<sub>K</sub> are not "
                             "read by this lens; showing a random W.</i>")
                        : tr("<br><i>Scene head: loaded attention has no W<sub>Q</sub>, "
                             "W<sub>K</sub>; showing a random W.</i>");
        } else if (sceneSource) {
            try {
                W = scene_bilinear(spec, h);
                what =
                    tr("scene head %1: W = W<sub>Q,h</sub>W<sub>K,h</sub><sup>T</sup>").arg(h + 1);
            } catch (const attn::Error& e) {
                note += tr("<br><i>Scene head unavailable (%1); showing a random W.</i>")
                            .arg(QString::fromUtf8(e.what()));
            }
        }
        return
            [this, spec, W, X, tokens, what, note] { drawScene(spec, W, X, tokens, what, note); };
    };
}

void LowRankLens::drawScene(const attn::SceneSpec& spec, attn::MatrixD W, attn::MatrixD X,
                            std::vector<std::string> tokens, QString what, QString note) {
    using namespace attn::lenses;
    const attn::Index d = W.size() ? W.rows() : std::max<attn::Index>(2, spec.d_model);
    if (!W.size()) {
        W = random_bilinear(d, spec.seed);
        what = tr("random %1 × %1 W, entries N(0, 1/d)").arg(d);
    }
    if (X.rows() == 0 || X.cols() != d) {
        attn::Rng rng(spec.seed);
        X = rng.normal_matrix(12, d).cast<double>();
        tokens.clear();
        note += tr("<br>Tokens: 12 seeded random vectors (the scene has no embeddings).");
    }
    rank_->setMaximum(int(d));
    const LowRankView v = low_rank_view(W, X, X, rank_->value());

    QVector<double> ix, sv, kx, ks;
    const double svFloor = std::max(1e-16, v.singular_values(0) * 1e-16);
    for (attn::Index i = 0; i < v.singular_values.size(); ++i) {
        ix.push_back(double(i + 1));
        sv.push_back(std::max(svFloor, v.singular_values(i)));
        if (i < v.rank) {
            kx.push_back(double(i + 1));
            ks.push_back(sv.back());
        }
    }
    sv_->graph(0)->setData(ix, sv);
    sv_->graph(1)->setData(kx, ks);
    sv_->xAxis->setRange(0, double(ix.size()) + 1);
    sv_->yAxis->setRange(svFloor / 3, v.singular_values(0) * 3);
    svMarker_->point1->setCoords(v.rank + 0.5, 1);
    svMarker_->point2->setCoords(v.rank + 0.5, 2);

    QVector<double> rx, es, ew;
    for (std::size_t r = 0; r < v.errors.size(); ++r) {
        rx.push_back(double(r));
        es.push_back(v.errors[r]);
        ew.push_back(v.weight_errors[r]);
    }
    err_->graph(0)->setData(rx, es);
    err_->graph(1)->setData(rx, ew);
    err_->xAxis->setRange(0, double(rx.size() - 1));
    err_->yAxis->setRange(0, 1.05 * std::max(1.0, *std::max_element(es.begin(), es.end())));
    errMarker_->point1->setCoords(double(v.rank), 0);
    errMarker_->point2->setCoords(double(v.rank), 1);

    const double lim = std::max(1e-12, v.full_scores.cwiseAbs().maxCoeff());
    fullMap_.setMatrix(v.full_scores, -lim, lim);
    fullMap_.setTokens(tokens, tokens);
    approxMap_.setTokens(tokens, tokens);
    approxMap_.setMatrix(v.rank_scores, -lim, lim);
    setPlotTitle(approx_, tr("Rank-%1 scores (W_Q x)·(W_K y)").arg(v.rank));
    const double err = v.errors[std::size_t(v.rank)];
    setReadout(tr("<b>%1</b><br>rank r = %2 of %3 (numerical rank %4)<br>"
                  "score error %5, matrix error %6<br>parameters: r·2d = %7 vs d² = %8%9")
                   .arg(what)
                   .arg(v.rank)
                   .arg(d)
                   .arg((v.singular_values.array() > v.singular_values(0) * 1e-9).count())
                   .arg(err, 0, 'g', 3)
                   .arg(v.weight_errors[std::size_t(v.rank)], 0, 'g', 3)
                   .arg(2 * v.rank * d)
                   .arg(d * d)
                   .arg(note));
}
