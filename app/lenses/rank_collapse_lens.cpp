// AttnScope — the "rank-collapse" lens. GPL-3.0-or-later.
#include "lenses/rank_collapse_lens.hpp"

#include <QDoubleSpinBox>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/rank_collapse.hpp"
#include "views/qcp.hpp"

namespace {
constexpr double kCollapseFloor = 1e-17;  // rounding level: below it the log axis would be empty
}

RankCollapseLens::RankCollapseLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("rank-collapse"), LensInputs::Controls, parent) {
    setExplanation(
        tr("<b>Rank collapse.</b> Each attention row is an average of the value rows, so a "
           "stack of pure self-attention layers (no residual, no feed-forward) pulls all "
           "tokens towards one vector: the token matrix becomes rank one, doubly "
           "exponentially fast in depth. A residual connection keeps the input's "
           "differences alive at every layer."),
        tr("pure: X<sub>l+1</sub> = softmax(X W<sub>Q</sub>(X W<sub>K</sub>)<sup>T</sup>/√d) "
           "X W<sub>V</sub><br>residual: X<sub>l+1</sub> = X<sub>l</sub> + β·(same)<br>"
           "distance = ‖X − 1x̄<sup>T</sup>‖<sub>F</sub> / ‖X‖<sub>F</sub>, x̄ = mean row"));
    depth_ = addSpin("depth", tr("depth L (layers)"), 1, 64, 16);
    n_ = addSpin("tokens", tr("tokens n"), 2, 256, 16);
    d_ = addSpin("width", tr("width d"), 2, 256, 32);
    sharp_ = addDoubleSpin("sharpness", tr("score sharpness (W<sub>Q</sub>, W<sub>K</sub> std·√d)"),
                           0.1, 5.0, 2.0, 0.1, 1);
    seed_ = addSpin("seed", tr("seed"), 0, 9999, 1);
    plot_ = addPlot(0, 0, tr("Distance from rank one vs depth"));
    plot_->xAxis->setLabel(tr("layer l (0 = input)"));
    plot_->yAxis->setLabel(tr("‖X − 1x̄ᵀ‖_F / ‖X‖_F  (log scale)"));
    setLogAxis(plot_->yAxis);
    QSharedPointer<QCPAxisTickerFixed> layers(new QCPAxisTickerFixed);
    layers->setTickStep(1);
    layers->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(layers);
    addGraph(plot_, tr("pure attention"), seriesColor(1), Qt::SolidLine, 2.5)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    addGraph(plot_, tr("residual, β = 1/√L"), seriesColor(0), Qt::SolidLine, 2.5)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    addGraph(plot_, tr("residual, β = 1"), seriesColor(2), Qt::DashLine, 2)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 6));
    refresh();
}

void RankCollapseLens::recompute() {
    using namespace attn::lenses;
    RankCollapseConfig c;
    c.depth = depth_->value();
    c.n = n_->value();
    c.d = d_->value();
    c.qk_std = sharp_->value();
    c.seed = std::uint64_t(seed_->value());
    const RankCollapseCurve scaled = rank_collapse(c);
    c.residual_scale = 1.0;
    const RankCollapseCurve unit = rank_collapse(c);
    QVector<double> x, p, r, u;
    for (std::size_t l = 0; l < scaled.pure.size(); ++l) {
        x.push_back(double(l));
        p.push_back(std::max(kCollapseFloor, scaled.pure[l]));
        r.push_back(std::max(kCollapseFloor, scaled.residual[l]));
        u.push_back(std::max(kCollapseFloor, unit.residual[l]));
    }
    plot_->graph(0)->setData(x, p);
    plot_->graph(1)->setData(x, r);
    plot_->graph(2)->setData(x, u);
    plot_->xAxis->setRange(-0.5, double(c.depth) + 0.5);
    plot_->yAxis->setRange(kCollapseFloor / 2, 3);
    int collapsed = -1;
    for (std::size_t l = 0; l < scaled.pure.size(); ++l)
        if (collapsed < 0 && scaled.pure[l] < 1e-6) collapsed = int(l);
    setReadout(tr("<b>After %1 layers</b> (n = %2, d = %3, seed %4):<br>"
                  "pure: %5<br>residual β = 1/√L: %6<br>residual β = 1: %7<br>%8"
                  "<i>Values at 10<sup>−16</sup> are rounding: the rows are equal to "
                  "double precision. The β = 1 stream's mean row grows fastest, which slowly "
                  "shrinks the ratio.</i>")
                   .arg(c.depth)
                   .arg(c.n)
                   .arg(c.d)
                   .arg(c.seed)
                   .arg(scaled.pure.back(), 0, 'g', 3)
                   .arg(scaled.residual.back(), 0, 'g', 3)
                   .arg(unit.residual.back(), 0, 'g', 3)
                   .arg(collapsed >= 0 ? tr("pure stack below 10<sup>−6</sup> from layer %1."
                                            "<br>")
                                             .arg(collapsed)
                                       : QString()));
}
