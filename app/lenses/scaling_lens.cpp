// AttnScope — the "scaling" lens. GPL-3.0-or-later.
#include "lenses/scaling_lens.hpp"

#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/scaling.hpp"
#include "views/qcp.hpp"

namespace {
constexpr std::uint64_t kScalingSeed = 20240;
constexpr attn::Index kTrials = 32;     // rows per d_k in the sweep: keeps the lens < 100 ms
constexpr attn::Index kSamples = 8000;  // enough for a smooth 81-bin histogram

}  // namespace

ScalingLens::ScalingLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("scaling"), LensInputs::Controls, parent) {
    setExplanation(
        tr("<b>Why divide by √d<sub>k</sub>?</b> If q and k have d<sub>k</sub> independent "
           "unit-variance entries, q·k is a sum of d<sub>k</sub> unit-variance terms: its "
           "variance grows like d<sub>k</sub>. Large scores push the softmax to one-hot, where "
           "its gradient vanishes. Dividing by √d<sub>k</sub> keeps the variance at 1 for every "
           "width."),
        tr("Var(q·k) = d<sub>k</sub> &nbsp;⇒&nbsp; Var(q·k/√d<sub>k</sub>) = 1<br>"
           "∂α/∂s = diag(α) − αα<sup>T</sup>, shown as its Frobenius norm "
           "‖·‖<sub>F</sub> = √(Σα² − 2Σα³ + (Σα²)²), which is 0 for one-hot α."));
    dk_ = addSlider("d_k", tr("d<sub>k</sub> (histogram)"), 0, 10, 6,
                    [](int e) { return QString::number(1 << e); });
    keys_ = addSpin("keys", tr("keys n per row"), 2, 1024, 32);
    hist_ = addPlot(0, 0, tr("Scores q·k of random unit-variance q, k"));
    var_ = addPlot(0, 1, tr("Score variance vs d_k"));
    sat_ = addPlot(1, 0, tr("Softmax saturation vs d_k"));
    jac_ = addPlot(1, 1, tr("Softmax gradient vs d_k"));

    hist_->xAxis->setLabel(tr("score value"));
    hist_->yAxis->setLabel(tr("probability density"));
    const QColor unscaled = seriesColor(1), scaled = seriesColor(0);
    for (QCPGraph* g : {addGraph(hist_, tr("q·k (unscaled)"), unscaled),
                        addGraph(hist_, tr("q·k / √d_k (scaled)"), scaled)}) {
        g->setLineStyle(QCPGraph::lsStepCenter);
        QColor fill = g->pen().color();
        fill.setAlpha(60);
        g->setBrush(fill);
    }
    addGraph(hist_, tr("N(0, 1) density"), seriesColor(6), Qt::DashLine, 1.5);

    for (QCustomPlot* p : {var_, sat_, jac_}) {
        p->xAxis->setLabel(tr("key/query width d_k"));
        setLogAxis(p->xAxis);
        p->xAxis->setNumberFormat(QStringLiteral("g"));
        p->xAxis->setNumberPrecision(7);
        auto* m = new QCPItemStraightLine(p);
        m->setPen(QPen(seriesColor(6), 1, Qt::DotLine));
        markers_.push_back(m);
    }
    var_->yAxis->setLabel(tr("variance of the scores"));
    setLogAxis(var_->yAxis);
    addGraph(var_, tr("measured, unscaled"), unscaled)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    addGraph(var_, tr("theory: d_k"), unscaled, Qt::DashLine, 1.2);
    addGraph(var_, tr("measured, scaled"), scaled)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    addGraph(var_, tr("theory: 1"), scaled, Qt::DashLine, 1.2);
    var_->legend->setVisible(true);

    sat_->yAxis->setLabel(tr("mean max weight max α"));
    sat_->yAxis->setRange(0, 1.05);
    sat_->yAxis2->setVisible(true);
    sat_->yAxis2->setLabel(tr("mean entropy H(α), nats"));
    addGraph(sat_, tr("max α, unscaled"), unscaled);
    addGraph(sat_, tr("max α, scaled"), scaled);
    for (auto [name, color] : {std::pair{tr("H, unscaled"), unscaled}, {tr("H, scaled"), scaled}}) {
        QCPGraph* g = sat_->addGraph(sat_->xAxis, sat_->yAxis2);
        g->setName(name);
        g->setPen(QPen(color, 2, Qt::DashLine));
    }

    jac_->yAxis->setLabel(tr("mean ‖diag(α) − ααᵀ‖_F"));
    addGraph(jac_, tr("unscaled"), unscaled);
    addGraph(jac_, tr("scaled"), scaled);
    refresh();
}

int ScalingLens::dk() const {
    return 1 << dk_->value();
}

void ScalingLens::recompute() {
    using namespace attn::lenses;
    const attn::Index d = dk();
    const DotSamples s = sample_dot_products(d, kSamples, kScalingSeed);
    const double half = std::max(4.5, 4.0 * std::sqrt(double(d)));
    const int bins = 81;
    // One grid for both: the scaled histogram is a narrow spike next to the wide unscaled one.
    const Histogram hu = histogram(s.unscaled, bins, -half, half);
    const Histogram hs = histogram(s.scaled, bins, -half, half);
    QVector<double> x, yu, ys, xn, yn;
    for (int b = 0; b < bins; ++b) {
        x.push_back(hu.centre(std::size_t(b)));
        yu.push_back(hu.counts[std::size_t(b)]);
        ys.push_back(hs.counts[std::size_t(b)]);
    }
    for (int i = 0; i <= 200; ++i) {
        const double v = -half + 2 * half * i / 200.0;
        xn.push_back(v);
        yn.push_back(std::exp(-v * v / 2) / std::sqrt(2 * M_PI));
    }
    hist_->graph(0)->setData(x, yu);
    hist_->graph(1)->setData(x, ys);
    hist_->graph(2)->setData(xn, yn);
    hist_->xAxis->setRange(-half, half);
    hist_->yAxis->setRange(0, std::max(0.45, *std::max_element(ys.begin(), ys.end()) * 1.1));
    setPlotTitle(hist_, tr("Scores q·k at d_k = %1 (%2 samples)").arg(d).arg(kSamples));

    ScalingConfig c;
    c.keys = keys_->value();
    c.seed = kScalingSeed;
    c.trials = kTrials;
    const auto pts = scaling_sweep(c);
    QVector<double> dks, vu, vs, theory, ones, mu, ms, eu, es, ju, js;
    for (const ScalingPoint& p : pts) {
        dks.push_back(double(p.d_k));
        vu.push_back(p.var_unscaled);
        vs.push_back(p.var_scaled);
        theory.push_back(double(p.d_k));
        ones.push_back(1.0);
        mu.push_back(p.max_unscaled);
        ms.push_back(p.max_scaled);
        eu.push_back(p.entropy_unscaled);
        es.push_back(p.entropy_scaled);
        ju.push_back(p.jacobian_unscaled);
        js.push_back(p.jacobian_scaled);
    }
    var_->graph(0)->setData(dks, vu);
    var_->graph(1)->setData(dks, theory);
    var_->graph(2)->setData(dks, vs);
    var_->graph(3)->setData(dks, ones);
    var_->rescaleAxes();
    var_->yAxis->setRange(0.3, dks.back() * 3);
    sat_->graph(0)->setData(dks, mu);
    sat_->graph(1)->setData(dks, ms);
    sat_->graph(2)->setData(dks, eu);
    sat_->graph(3)->setData(dks, es);
    sat_->yAxis2->setRange(0, std::log(double(c.keys)) * 1.05);
    jac_->graph(0)->setData(dks, ju);
    jac_->graph(1)->setData(dks, js);
    jac_->yAxis->rescale();
    jac_->yAxis->setRange(0, jac_->yAxis->range().upper * 1.15);
    for (QCustomPlot* p : {var_, sat_, jac_})
        p->xAxis->setRange(0.8, dks.back() * 1.25);
    for (QCPItemStraightLine* m : markers_) {
        m->point1->setCoords(double(d), 0.001);
        m->point2->setCoords(double(d), 1000);
    }

    const Moments mu_ = moments(s.unscaled), ms_ = moments(s.scaled);
    setReadout(tr("<b>At d<sub>k</sub> = %1</b> (%2 samples, seed %3):<br>"
                  "Var(q·k) = %4 (theory %1)<br>Var(q·k/√d<sub>k</sub>) = %5 (theory 1)<br>"
                  "Sweep: %6 rows of n = %7 keys per d<sub>k</sub>.")
                   .arg(d)
                   .arg(kSamples)
                   .arg(kScalingSeed)
                   .arg(mu_.variance, 0, 'f', 2)
                   .arg(ms_.variance, 0, 'f', 3)
                   .arg(c.trials)
                   .arg(c.keys));
}
