// AttnScope — the "cost" lens. GPL-3.0-or-later.
#include "lenses/cost_lens.hpp"
#include "lenses/bytes_text.hpp"

#include <QComboBox>
#include <QLocale>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/cost.hpp"
#include "attn/util/error.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"

CostLens::CostLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("cost"), LensInputs::Controls, parent) {
    setExplanation(
        tr("<b>Where the time goes.</b> The projections cost O(n·d²), the score matrix QK<sup>T"
           "</sup> and the mix AV cost O(n²·d): attention dominates once n passes about 2d. "
           "Splitting d into h heads does not change the matrix-product total. At inference "
           "the keys and values of past tokens are cached; sharing them across query heads "
           "(GQA, MQA) shrinks the cache."),
        tr("FLOPs: (a×b)(b×c) = 2abc (multiply-add = 2)<br>"
           "proj = 2nd·(2d + 2·kv·d<sub>k</sub>), QK<sup>T</sup> = AV = 2n²d<br>"
           "softmax ≈ 5·h·n² (scale, max, exp, sum, divide), not in totals<br>"
           "KV bytes = 2·L·n·kv·d<sub>k</sub>·bytes"));
    const attn::SceneSpec spec = scene ? scene->spec() : attn::SceneSpec{};
    dModel_ = addSpin("d_model", tr("d<sub>model</sub>"), 8, 16384, 768, 64);
    heads_ = addSpin("heads", tr("heads h"), 1, 256, 12);
    kvHeads_ = addSpin("kv_heads", tr("kv-heads (h = MHA, 1 = MQA)"), 1, 256, 4);
    layers_ = addSpin("layers", tr("layers L"), 1, 256, 12);
    n_ = addSpin("context", tr("context n (cache)"), 1, 1 << 20, 4096, 256);
    bytes_ = addCombo("bytes_per_value", tr("bytes per value"),
                      {tr("2 (fp16/bf16)"), tr("4 (fp32)"), tr("1 (int8)")}, 0);
    flops_ = addPlot(0, 0, tr("FLOPs of one layer vs sequence length"), 1, 2);
    heads_plot_ = addPlot(1, 0, tr("Matrix-product FLOPs vs head count"));
    cache_ = addPlot(1, 1, tr("KV-cache size vs context length"));

    flops_->xAxis->setLabel(tr("sequence length n (tokens)"));
    flops_->yAxis->setLabel(tr("FLOPs per layer"));
    setLogAxis(flops_->xAxis);
    flops_->xAxis->setNumberFormat(QStringLiteral("g"));
    flops_->xAxis->setNumberPrecision(7);
    setLogAxis(flops_->yAxis);
    addGraph(flops_, tr("projections Q, K, V, O"), seriesColor(0), Qt::SolidLine, 2.5);
    addGraph(flops_, tr("QKᵀ + AV (attention)"), seriesColor(1), Qt::SolidLine, 2.5);
    addGraph(flops_, tr("softmax (≈ 5hn²)"), seriesColor(4), Qt::DashLine, 1.5);
    addGraph(flops_, tr("total matrix products"), seriesColor(6), Qt::DotLine, 2);
    cross_ = new QCPItemStraightLine(flops_);
    cross_->setPen(QPen(seriesColor(3), 1.5, Qt::DashDotLine));
    crossLabel_ = new QCPItemText(flops_);
    crossLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    crossLabel_->setColor(palette().color(QPalette::WindowText));
    crossLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);

    heads_plot_->xAxis->setLabel(tr("head count h (divisors of d_model)"));
    heads_plot_->yAxis->setLabel(tr("FLOPs per layer"));
    proj_bars_ = new QCPBars(heads_plot_->xAxis, heads_plot_->yAxis);
    proj_bars_->setName(tr("projections"));
    proj_bars_->setBrush(seriesColor(0));
    proj_bars_->setPen(Qt::NoPen);
    attn_bars_ = new QCPBars(heads_plot_->xAxis, heads_plot_->yAxis);
    attn_bars_->setName(tr("QKᵀ + AV"));
    attn_bars_->setBrush(seriesColor(1));
    attn_bars_->setPen(Qt::NoPen);
    attn_bars_->moveAbove(proj_bars_);

    cache_->xAxis->setLabel(tr("context length n (tokens)"));
    cache_->yAxis->setLabel(tr("KV cache, MiB (log scale)"));
    setLogAxis(cache_->xAxis);
    cache_->xAxis->setNumberFormat(QStringLiteral("g"));
    cache_->xAxis->setNumberPrecision(7);
    setLogAxis(cache_->yAxis);
    cache_->yAxis->setNumberFormat(QStringLiteral("g"));
    cache_->yAxis->setNumberPrecision(7);
    addGraph(cache_, tr("MHA (kv = h)"), seriesColor(1), Qt::SolidLine, 2);
    addGraph(cache_, tr("GQA (chosen kv)"), seriesColor(0), Qt::SolidLine, 2.5);
    addGraph(cache_, tr("MQA (kv = 1)"), seriesColor(2), Qt::SolidLine, 2);
    cacheMarker_ = new QCPItemStraightLine(cache_);
    cacheMarker_->setPen(QPen(seriesColor(6), 1, Qt::DotLine));
    refresh();
}

void CostLens::recompute() {
    using namespace attn::lenses;
    const attn::Index d = dModel_->value();
    attn::Index h = heads_->value(), kv = kvHeads_->value();
    QString warn;
    // Keep the plots meaningful while the user is typing an invalid combination.
    if (d % h != 0) {
        warn += tr("<br><i>h = %1 does not divide d<sub>model</sub>; using h = 1.</i>").arg(h);
        h = 1;
    }
    if (kv > h || h % kv != 0) {
        warn += tr("<br><i>kv-heads must divide h; using kv = h (MHA).</i>");
        kv = h;
    }
    QVector<double> x, proj, att, sm, tot;
    const attn::Index nmax = std::max<attn::Index>(8 * d, 16 * 1024);
    for (double n = 16; n <= double(nmax) * 1.001; n *= std::pow(2.0, 0.25)) {
        const LayerFlops f = attention_flops(attn::Index(std::llround(n)), d, h, kv);
        x.push_back(n);
        proj.push_back(f.projections());
        att.push_back(f.attention());
        sm.push_back(f.softmax);
        tot.push_back(f.matmul());
    }
    flops_->graph(0)->setData(x, proj);
    flops_->graph(1)->setData(x, att);
    flops_->graph(2)->setData(x, sm);
    flops_->graph(3)->setData(x, tot);
    flops_->xAxis->setRange(x.front(), x.back());
    flops_->yAxis->setRange(std::min(sm.front(), proj.front()) / 2, tot.back() * 2);
    const double nx = crossover_length(d, h, kv);
    cross_->point1->setCoords(nx, 1);
    cross_->point2->setCoords(nx, 10);
    crossLabel_->position->setCoords(nx * 1.08, 0.97);
    crossLabel_->setText(tr("crossover n* = %1").arg(nx, 0, 'g', 5));

    // Every divisor of d_model up to 64 heads: the bars have equal height.
    QVector<double> hx, hp, ha;
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    const attn::Index n = n_->value();
    int idx = 0;
    for (attn::Index hh = 1; hh <= std::min<attn::Index>(64, d); ++hh) {
        if (d % hh != 0) continue;
        const LayerFlops f = attention_flops(n, d, hh);
        hx.push_back(idx);
        hp.push_back(f.projections());
        ha.push_back(f.attention());
        ticks->addTick(idx, QString::number(hh));
        ++idx;
    }
    proj_bars_->setData(hx, hp);
    attn_bars_->setData(hx, ha);
    heads_plot_->xAxis->setTicker(ticks);
    heads_plot_->xAxis->setRange(-0.7, idx - 0.3);
    heads_plot_->yAxis->setRange(0, (hp.front() + ha.front()) * 1.45);
    setPlotTitle(heads_plot_, tr("Matrix-product FLOPs vs head count (n = %1)").arg(n));

    const int bytesPerValue = bytes_->currentIndex() == 0 ? 2 : bytes_->currentIndex() == 1 ? 4 : 1;
    KvCacheConfig c;
    c.layers = layers_->value();
    c.d_model = d;
    c.heads = h;
    c.bytes_per_value = bytesPerValue;
    QVector<double> cx, mha, gqa, mqa;
    for (double m = 64; m <= (1 << 20) * 1.001; m *= 2) {
        c.n = attn::Index(m);
        cx.push_back(m);
        c.kv_heads = h;
        mha.push_back(double(kv_cache_bytes(c)) / (1 << 20));
        c.kv_heads = kv;
        gqa.push_back(double(kv_cache_bytes(c)) / (1 << 20));
        c.kv_heads = 1;
        mqa.push_back(double(kv_cache_bytes(c)) / (1 << 20));
    }
    cache_->graph(0)->setData(cx, mha);
    cache_->graph(1)->setData(cx, gqa);
    cache_->graph(2)->setData(cx, mqa);
    cache_->xAxis->setRange(cx.front(), cx.back());
    cache_->yAxis->setRange(mqa.front() / 2, mha.back() * 2);
    cacheMarker_->point1->setCoords(double(n), 1);
    cacheMarker_->point2->setCoords(double(n), 2);
    c.n = n;
    c.kv_heads = kv;
    const double bytes = double(kv_cache_bytes(c));
    const LayerFlops f = attention_flops(n, d, h, kv);
    setReadout(tr("<b>d<sub>model</sub> = %1, h = %2, kv = %3, d<sub>k</sub> = %4</b><br>"
                  "crossover n* = %5 tokens<br>at n = %6: projections %7, QK<sup>T</sup>+AV "
                  "%8 GFLOP per layer<br><b>KV cache</b> (%9 layers, %10 B/value): %11 "
                  "per sequence<br>= 2·%9·%6·%3·%4·%10 bytes%12")
                   .arg(d)
                   .arg(h)
                   .arg(kv)
                   .arg(d / h)
                   .arg(nx, 0, 'g', 5)
                   .arg(n)
                   .arg(f.projections() / 1e9, 0, 'g', 4)
                   .arg(f.attention() / 1e9, 0, 'g', 4)
                   .arg(c.layers)
                   .arg(bytesPerValue)
                   .arg(bytesText(bytes, 2))
                   .arg(warn));
}
