// AttnScope — the "efficient" lens. GPL-3.0-or-later.
#include "lenses/efficient_lens.hpp"
#include "lenses/bytes_text.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLocale>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/favor.hpp"
#include "attn/lenses/reference.hpp"
#include "attn/lenses/sparse.hpp"
#include "attn/lenses/tiled.hpp"
#include "attn/util/random.hpp"
#include "views/qcp.hpp"

namespace {
constexpr std::uint64_t kEfficientSeed = 31;
constexpr double kFloor = 1e-17;
constexpr attn::Index kBytes = 4;  // fp32, as on a GPU
constexpr double kContent = 0.7;   // std of the content part of q and k

}  // namespace

EfficientLens::EfficientLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("efficient"), LensInputs::Controls, parent) {
    setExplanation(
        tr("<b>Cheaper attention.</b> Sparse patterns keep a band of neighbours, a few global "
           "tokens (Longformer) and random keys (BigBird): O(n·w) work, but an approximation. "
           "Performer's FAVOR+ replaces exp(q·k) by a product of positive random features: "
           "linear in n, error ~1/√m once m is well above e<sup>‖q′+k′‖²</sup>, the relative "
           "variance of one feature; with larger norms the curve is flatter first. FlashAttention "
           "is exact: it walks over tiles of keys "
           "with an online softmax, so the n×n score matrix never exists. Sparse patterns suit "
           "local attention, FAVOR+ diffuse attention: move the locality to see."),
        tr("exp(q·k) = E<sub>ω~N(0,I)</sub>[φ(q)·φ(k)], φ(x) = e<sup>ωx − ‖x‖²/2</sup>/√m"
           "<br>online softmax per tile: m' = max(m, max s), ℓ' = e<sup>m−m'</sup>ℓ + Σ"
           "e<sup>s−m'</sup>, o' = e<sup>m−m'</sup>o + Σ e<sup>s−m'</sup>v<br>"
           "error = ‖O − O<sub>exact</sub>‖<sub>F</sub>/‖V‖<sub>F</sub> (on the values' scale: "
           "diffuse attention makes O<sub>exact</sub> itself small)"));
    n_ = addSpin("tokens", tr("tokens n"), 4, 512, 64);
    d_ = addSpin("width", tr("width d"), 4, 128, 16);
    locality_ = addDoubleSpin("locality", tr("locality of the scores"), 0, 8, 2, 0.5, 1);
    window_ = addSpin("window", tr("window radius w"), 0, 256, 4);
    random_ = addSpin("random_keys", tr("BigBird random keys / row"), 0, 64, 2);
    features_ = addSpin("features", tr("FAVOR+ features m"), 1, 4096, 64, 16);
    orthogonal_ = addCheck("orthogonal", tr("orthogonal random features"), true);
    block_ = addSpin("tile", tr("tile size B (queries = keys)"), 1, 512, 16);
    errors_ = addPlot(0, 0, tr("Error against exact attention"));
    favor_ = addPlot(0, 1, tr("FAVOR+ error vs number of features"));
    mask_ = addPlot(1, 0, tr("BigBird pattern"));
    memory_ = addPlot(1, 1, tr("Peak working memory of the scores"));

    errors_->yAxis->setLabel(tr("‖O − O_exact‖_F / ‖V‖_F (log)"));
    setLogAxis(errors_->yAxis);
    bars_ = new QCPBars(errors_->xAxis, errors_->yAxis);
    bars_->setBrush(seriesColor(0));
    bars_->setPen(Qt::NoPen);
    bars_->setBaseValue(kFloor);
    bars_->setName(tr("error (tiled: rounding)"));
    errors_->xAxis->setTickLabelRotation(-35);
    errors_->xAxis->grid()->setVisible(false);
    errors_->legend->setVisible(false);  // one series: the axis label says it all

    favor_->xAxis->setLabel(tr("random features m"));
    favor_->yAxis->setLabel(tr("‖O − O_exact‖_F / ‖V‖_F (log)"));
    setLogAxis(favor_->xAxis);
    favor_->xAxis->setNumberFormat(QStringLiteral("g"));
    favor_->xAxis->setNumberPrecision(7);
    setLogAxis(favor_->yAxis);
    favor_->yAxis->setNumberFormat(QStringLiteral("g"));
    favor_->yAxis->setNumberPrecision(7);
    addGraph(favor_, tr("i.i.d. features (mean of 4 seeds)"), seriesColor(1))
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    addGraph(favor_, tr("orthogonal features (mean of 4)"), seriesColor(0))
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    addGraph(favor_, tr("∝ 1/√m through the last point"), seriesColor(6), Qt::DashLine, 1.2);

    mask_->xAxis->setLabel(tr("key j"));
    mask_->yAxis->setLabel(tr("query i"));
    maskMap_ = LensHeatmap::create(mask_, tr("0 hidden · 1 band · 2 global · 3 random"), false);

    memory_->xAxis->setLabel(tr("sequence length n (tokens)"));
    memory_->yAxis->setLabel(tr("bytes (fp32, log)"));
    setLogAxis(memory_->xAxis);
    memory_->xAxis->setNumberFormat(QStringLiteral("g"));
    memory_->xAxis->setNumberPrecision(7);
    setLogAxis(memory_->yAxis);
    addGraph(memory_, tr("dense: n² scores"), seriesColor(1), Qt::SolidLine, 2.5);
    addGraph(memory_, tr("tiled: one B×B tile + m, ℓ, o"), seriesColor(2), Qt::SolidLine, 2.5);
    refresh();
}

void EfficientLens::recompute() {
    using namespace attn::lenses;
    const attn::Index n = n_->value(), d = d_->value();
    const QkvSample qkv = local_qkv(n, d, locality_->value(), kContent, kEfficientSeed);
    const attn::MatrixD &Q = qkv.Q, &K = qkv.K, &V = qkv.V;
    const attn::MatrixD exact = exact_attention(Q, K, V);
    const double vnorm = std::max(1e-300, V.norm());
    const auto valueError = [&](const attn::MatrixD& O) { return (O - exact).norm() / vnorm; };

    SparseConfig sc;
    sc.window = window_->value();
    sc.globals = {0};
    sc.random_keys = random_->value();
    sc.seed = kEfficientSeed;
    const auto sparse = compare_sparse(Q, K, V, sc);
    const attn::Index m = features_->value();
    const double favorErr =
        valueError(favor_attention(Q, K, V, m, orthogonal_->isChecked(), kEfficientSeed));
    TiledConfig tc;
    tc.block_q = tc.block_k = block_->value();
    tc.bytes_per_value = kBytes;
    const TiledResult tiled = tiled_attention(Q, K, V, nullptr, true, tc);
    const double tiledErr = valueError(tiled.output);
    const double tiledMax = (tiled.output - exact).cwiseAbs().maxCoeff();

    QVector<double> bx, by;
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    const QStringList names = {tr("window"), tr("global+window"), tr("BigBird"),
                               tr("FAVOR+ m=%1").arg(m), tr("tiled (exact)")};
    const double errs[] = {sparse[0].value_error, sparse[1].value_error, sparse[2].value_error,
                           favorErr, tiledErr};
    for (int i = 0; i < 5; ++i) {
        bx.push_back(i);
        by.push_back(std::max(kFloor * 10, errs[i]));
        ticks->addTick(i, names[i]);
    }
    bars_->setData(bx, by);
    errors_->xAxis->setTicker(ticks);
    errors_->xAxis->setRange(-0.6, 4.6);
    errors_->yAxis->setRange(kFloor, 10);

    const std::vector<attn::Index> ms = {4, 8, 16, 32, 64, 128, 256, 512, 1024};
    const auto iid = favor_error_curve(Q, K, V, ms, 4, false, kEfficientSeed);
    const auto orth = favor_error_curve(Q, K, V, ms, 4, true, kEfficientSeed);
    // The Monte-Carlo rate is asymptotic: the guide goes through the largest m, where the
    // curve is closest to it, not through m = 4, where heavy-tailed features dominate.
    QVector<double> fx, fi, fo, guide;
    for (std::size_t i = 0; i < ms.size(); ++i) {
        fx.push_back(double(ms[i]));
        fi.push_back(iid[i].mean_value_error);
        fo.push_back(orth[i].mean_value_error);
        guide.push_back(iid.back().mean_value_error * std::sqrt(double(ms.back()) / double(ms[i])));
    }
    const double slope = favor_convergence_slope(iid);
    const double exponent = favor_variance_exponent(Q, K);
    favor_->graph(0)->setData(fx, fi);
    favor_->graph(1)->setData(fx, fo);
    favor_->graph(2)->setData(fx, guide);
    favor_->xAxis->setRange(3, 1400);
    favor_->yAxis->rescale();
    favor_->yAxis->setRange(favor_->yAxis->range().lower / 2, favor_->yAxis->range().upper * 2);

    // Pattern categories: band 1, global 2 (overrides), random-only 3.
    const attn::BoolMatrix band = sparse[0].mask, global = sparse[1].mask, big = sparse[2].mask;
    attn::MatrixD cat = attn::MatrixD::Zero(n, n);
    for (attn::Index i = 0; i < n; ++i)
        for (attn::Index j = 0; j < n; ++j)
            cat(i, j) = band(i, j) ? 1 : global(i, j) ? 2 : big(i, j) ? 3 : 0;
    maskMap_.setMatrix(cat, 0, 3);
    setPlotTitle(
        mask_, tr("BigBird pattern: %1% of the n² pairs").arg(100 * sparse[2].density, 0, 'f', 1));

    QVector<double> nx, dense, tile;
    for (double nn = 64; nn <= 1 << 20; nn *= 2) {
        nx.push_back(nn);
        dense.push_back(double(dense_peak_bytes(attn::Index(nn), attn::Index(nn), kBytes)));
        tile.push_back(double(tiled_peak_bytes(tc, d)));
    }
    memory_->graph(0)->setData(nx, dense);
    memory_->graph(1)->setData(nx, tile);
    memory_->xAxis->setRange(nx.front(), nx.back());
    memory_->yAxis->setRange(std::min(tile.front(), dense.front()) / 4, dense.back() * 4);

    setReadout(tr("<b>n = %1, d = %2</b>  (seeded; scores = content + locality · position bump)<br>"
                  "window: %3% of pairs, error %4<br>global+window: %5%, error %6<br>"
                  "BigBird: %7%, error %8<br>FAVOR+ (m = %9): error %10<br>"
                  "FAVOR+ slope %15 (1/√m: −0.5); max ‖q′+k′‖² = %16, so the 1/√m rate "
                  "needs m ≫ e<sup>%16</sup> ≈ %17<br>"
                  "tiled B = %11: max |Δ| = %12<br>"
                  "peak scores memory: dense %13 vs tiled %14")
                   .arg(n)
                   .arg(d)
                   .arg(100 * sparse[0].density, 0, 'f', 1)
                   .arg(sparse[0].value_error, 0, 'g', 3)
                   .arg(100 * sparse[1].density, 0, 'f', 1)
                   .arg(sparse[1].value_error, 0, 'g', 3)
                   .arg(100 * sparse[2].density, 0, 'f', 1)
                   .arg(sparse[2].value_error, 0, 'g', 3)
                   .arg(m)
                   .arg(favorErr, 0, 'g', 3)
                   .arg(tc.block_q)
                   .arg(tiledMax, 0, 'g', 2)
                   .arg(bytesText(double(dense_peak_bytes(n, n, kBytes)), 1))
                   .arg(bytesText(double(tiled.peak_bytes), 1))
                   .arg(slope, 0, 'f', 2)
                   .arg(exponent, 0, 'f', 1)
                   .arg(std::exp(exponent), 0, 'g', 2));
}
