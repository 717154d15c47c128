// AttnScope — the "lookup" lens. GPL-3.0-or-later.
#include "lenses/lookup_lens.hpp"

#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "attn/attention/multihead.hpp"
#include "attn/lenses/lookup.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"
#include "model/layer_cache.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"
#include "views/token_labels.hpp"

namespace {
constexpr std::uint64_t kLookupSeed = 5;
}

LookupLens::LookupLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("lookup"), LensInputs::Scene, parent) {
    setExplanation(
        tr("<b>Soft vs hard lookup.</b> A dictionary returns the value of the one key that "
           "matches. Attention returns the average of all values weighted by α: the "
           "<i>expectation</i> of a hard lookup whose key is drawn from the categorical "
           "distribution α. Sampled lookups converge to it like 1/√N. The temperature τ moves "
           "α from uniform (τ → ∞) to the hard argmax (τ → 0)."),
        tr("soft: o = Σ<sub>j</sub> α<sub>j</sub> v<sub>j</sub> = E<sub>j~α</sub>[v<sub>j</sub>]"
           "<br>α = softmax(s/τ), s = q·k/√d<sub>k</sub><br>"
           "H(α) → log n (τ → ∞), H(α) → 0 (τ → 0)"));
    const attn::SceneSpec spec = scene ? scene->spec() : attn::SceneSpec{};
    const Selection sel = scene ? scene->selection() : Selection{};
    // Queries and heads as the rest of the window counts them: from 1 (model/numbering.hpp).
    query_ = addIndexSpin("query", tr("query i"), 4095, std::max(0, sel.query));
    head_ = addSpin("head", tr("head h"), 1, 256, int(shown(sel.head)));
    for (QSpinBox* box : {query_, head_})
        box->setToolTip(numberingNote());
    tau_ = addSlider("temperature", tr("temperature τ"), -200, 200,
                     int(std::lround(100 * std::log10(std::max(0.01f, spec.temperature)))),
                     [](int v) { return QString::number(std::pow(10.0, v / 100.0), 'g', 3); });
    samples_ = addSlider("samples", tr("hard samples N"), 1, 5, 3,
                         [](int e) { return QString::number(std::pow(10, e), 'g', 6); });
    dist_ = addPlot(0, 0, tr("α as a categorical distribution"));
    conv_ = addPlot(0, 1, tr("Hard lookups converge to the soft one"));
    sweep_ = addPlot(1, 0, tr("Temperature sweep: uniform → argmax"), 1, 2);

    dist_->yAxis->setLabel(tr("probability"));
    dist_->xAxis->setLabel(tr("key token j"));
    dist_->xAxis->setTickLabelRotation(-50);
    dist_->xAxis->setSubTicks(false);
    dist_->xAxis->grid()->setVisible(false);
    auto* group = new QCPBarsGroup(dist_);
    group->setSpacing(0);
    alphaBars_ = new QCPBars(dist_->xAxis, dist_->yAxis);
    alphaBars_->setName(tr("α (exact)"));
    alphaBars_->setBrush(seriesColor(0));
    alphaBars_->setPen(Qt::NoPen);
    alphaBars_->setWidth(0.4);
    alphaBars_->setBarsGroup(group);
    freqBars_ = new QCPBars(dist_->xAxis, dist_->yAxis);
    freqBars_->setName(tr("sample frequency"));
    freqBars_->setBrush(seriesColor(4));
    freqBars_->setPen(Qt::NoPen);
    freqBars_->setWidth(0.4);
    freqBars_->setBarsGroup(group);

    conv_->xAxis->setLabel(tr("number of hard lookups N"));
    conv_->yAxis->setLabel(tr("‖mean of v_j − αᵀV‖ / ‖αᵀV‖"));
    setLogAxis(conv_->xAxis);
    conv_->xAxis->setNumberFormat(QStringLiteral("g"));
    conv_->xAxis->setNumberPrecision(7);
    setLogAxis(conv_->yAxis);
    conv_->yAxis->setNumberFormat(QStringLiteral("g"));
    conv_->yAxis->setNumberPrecision(7);
    addGraph(conv_, tr("sampled mean"), seriesColor(1), Qt::SolidLine, 2);
    addGraph(conv_, tr("∝ 1/√N"), seriesColor(6), Qt::DashLine, 1.2);

    sweep_->xAxis->setLabel(tr("temperature τ (log scale)"));
    sweep_->yAxis->setLabel(tr("entropy H(α), nats"));
    setLogAxis(sweep_->xAxis);
    sweep_->xAxis->setNumberFormat(QStringLiteral("g"));
    sweep_->xAxis->setNumberPrecision(7);
    sweep_->yAxis2->setVisible(true);
    sweep_->yAxis2->setLabel(tr("max weight max α"));
    sweep_->yAxis2->setRange(0, 1.05);
    addGraph(sweep_, tr("entropy H(α)"), seriesColor(0), Qt::SolidLine, 2.5);
    addGraph(sweep_, tr("ceiling log n"), seriesColor(6), Qt::DashLine, 1.5);
    QCPGraph* mw = sweep_->addGraph(sweep_->xAxis, sweep_->yAxis2);
    mw->setName(tr("max α (right axis)"));
    mw->setPen(QPen(seriesColor(1), 2));
    tauMarker_ = new QCPItemStraightLine(sweep_);
    tauMarker_->setPen(QPen(seriesColor(3), 1.5, Qt::DashDotLine));
    if (scene)
        connect(scene, &Scene::selectionChanged, this, [this] {
            const Following following(this);  // the selection's head and query, no edit
            const Selection s = this->scene()->selection();
            if (s.query >= 0) query_->setValue(s.query);
            head_->setValue(int(shown(s.head)));
        });
    refreshWhenShown();
}

double LookupLens::temperature() const {
    return std::pow(10.0, tau_->value() / 100.0);
}

LensPanel::Compute LookupLens::prepare() {
    const attn::SceneSpec spec = scene() ? scene()->spec() : attn::SceneSpec{};
    // Another query, head or τ of the lens on the same scene: no new computation.
    const auto reuse = computed_ && computedSpec_ == spec ? computed_ : nullptr;
    // Else the scene from the window's cache: held, kept or computed there once (a long scene
    // streamed: the one query's row is recomputed, nothing n × n).
    auto sceneOf = reuse || !scene() ? std::function<SceneResultPtr(attn::Progress&)>()
                                     : LayerCache::of(scene())->sceneFor(spec, false);
    // The scene's computation runs on the worker; the lookup itself is the lens's own maths.
    return [this, spec, reuse, sceneOf](attn::Progress& progress) -> Draw {
        try {
            const SceneResultPtr r = reuse ? reuse : sceneOf ? sceneOf(progress) : nullptr;
            if (!r) throw attn::ArgumentError("The lens has no scene.");
            return [this, r, spec] {
                computed_ = r;
                computedSpec_ = spec;
                drawLookup(*r);
            };
        } catch (const attn::Error& e) {
            const QString message = QString::fromUtf8(e.what());
            return [this, message] { setReadout(tr("<i>%1</i>").arg(message)); };
        }
    };
}

void LookupLens::drawLookup(const attn::SceneResult& r) {
    using namespace attn::lenses;
    if (r.heads.empty()) return;
    head_->setMaximum(int(r.heads.size()));
    query_->setMaximum(std::max(0, int(r.q_tokens.size()) - 1));
    const std::size_t h = std::size_t(head_->value() - 1);
    const attn::Index i = query_->value();
    const attn::HeadResult& head = r.heads[h];
    // Scores before τ: the lens applies its own temperature (masked keys stay at −∞).
    const auto hi = attn::Index(h);
    attn::VectorD s;
    QString sNote;
    if (r.has_scores) {
        const Eigen::RowVectorXf masked = r.masked_row(hi, i);
        const Eigen::RowVectorXf raw = r.raw_row(hi, i);
        attn::BoolMatrix allowed(1, masked.size());
        for (attn::Index j = 0; j < masked.size(); ++j)
            allowed(0, j) = !(std::isinf(masked(j)) && masked(j) < 0);
        Eigen::RowVectorXf z(raw.size());
        attn::score_stages(head.at_unit_temperature(), raw.data(), i, 0, raw.size(), allowed.data(),
                           {.masked = z.data()});
        s = z.cast<double>().transpose();
    } else if (i < head.weights.rows()) {
        // Post-softmax weights w = softmax(s) give s back up to a constant: s = log w, so τ = 1
        // shows the loaded row itself and other τ temper it (w^(1/τ), normalised).
        s.resize(head.weights.cols());
        for (attn::Index j = 0; j < s.size(); ++j) {
            const double w = double(head.weights(i, j));
            s(j) = w > 0 ? std::log(w) : -INFINITY;
        }
        sNote =
            tr("<br><i>Loaded post-softmax weights: scores s = log α (up to a constant), "
               "so τ = 1 is the loaded row.</i>");
    }
    const attn::Index n = s.size();
    const attn::Index visible = (s.array() > -INFINITY).count();
    if (visible == 0) {
        // Nothing of another scene or query may stay drawn under this message.
        alphaBars_->data()->clear();
        freqBars_->data()->clear();
        for (QCustomPlot* p : {conv_, sweep_})
            for (int g = 0; g < p->graphCount(); ++g)
                p->graph(g)->data()->clear();
        setPlotTitle(dist_, tr("α of query %1, head %2").arg(shown(i)).arg(shown(h)));
        for (QCustomPlot* p : {dist_, conv_, sweep_})
            p->replot();
        setReadout(n == 0 ? tr("<i>Query %1, head %2: this scene keeps no weights to sample "
                               "(a streamed long sequence).</i>")
                                .arg(shown(i))
                                .arg(shown(h))
                          : tr("<i>Query %1 sees no key (fully masked row).</i>").arg(shown(i)));
        return;
    }
    attn::MatrixD V;
    QString vNote;
    if (r.has_vectors && r.V.rows() == n && r.d_k > 0) {
        const attn::Index g =
            attn::kv_head_of(attn::Index(h), attn::Index(r.heads.size()),
                             r.kv_heads > 0 ? r.kv_heads : attn::Index(r.heads.size()));
        V = r.V.middleCols(g * r.d_k, r.d_k).cast<double>();
    } else {
        V = attn::Rng(kLookupSeed).normal_matrix(n, 8).cast<double>();
        vNote = computedSpec_.is_model()
                    ? tr("<br><i>The model's run keeps no value vectors here: V is seeded "
                         "random.</i>")
                    : tr("<br><i>Loaded weights have no values: V is seeded random.</i>");
    }
    const double tau = temperature();
    const attn::VectorD alpha = tempered_softmax(s, tau);
    const attn::Index N = attn::Index(std::llround(std::pow(10.0, samples_->value())));
    const HardLookup hl = hard_lookup(alpha, V, N, kLookupSeed);

    QVector<double> kx, ka, kf;
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (attn::Index j = 0; j < n; ++j) {
        kx.push_back(double(j));
        ka.push_back(alpha(j));
        kf.push_back(hl.frequencies[std::size_t(j)]);
        if (std::size_t(j) < r.k_tokens.size())
            ticks->addTick(double(j), elideToken(r.k_tokens[std::size_t(j)], 10));
    }
    alphaBars_->setData(kx, ka);
    freqBars_->setData(kx, kf);
    dist_->xAxis->setTicker(ticks);
    setPlainLabels(dist_->xAxis, r.k_tokens);
    dist_->xAxis->setRange(-0.6, double(n) - 0.4);
    dist_->yAxis->setRange(
        0, std::max(alpha.maxCoeff(), *std::max_element(kf.begin(), kf.end())) * 1.35);
    const QString qtok = std::size_t(i) < r.q_tokens.size()
                             ? elideToken(r.q_tokens[std::size_t(i)], 14)
                             : QString::number(shown(i));
    setPlotTitle(dist_, tr("α of query %1 “%2”, head %3, τ = %4")
                            .arg(shown(i))
                            .arg(qtok)
                            .arg(shown(h))
                            .arg(tau, 0, 'g', 3));

    QVector<double> cx, cy, guide;
    for (std::size_t k = 0; k < hl.steps.size(); ++k) {
        cx.push_back(double(hl.steps[k]));
        cy.push_back(std::max(1e-6, hl.errors[k]));
    }
    // 1/√N reference through the standard deviation of a single draw.
    double var = 0;
    for (attn::Index j = 0; j < n; ++j)
        var += alpha(j) * (V.row(j).transpose() - hl.exact).squaredNorm();
    const double sd = std::sqrt(var) / std::max(1e-12, hl.exact.norm());
    for (double x : cx)
        guide.push_back(std::max(1e-6, sd / std::sqrt(x)));
    conv_->graph(0)->setData(cx, cy);
    conv_->graph(1)->setData(cx, guide);
    conv_->xAxis->setRange(1, double(N) * 1.2);
    conv_->yAxis->rescale();
    conv_->yAxis->setRange(conv_->yAxis->range().lower / 2, conv_->yAxis->range().upper * 2);

    std::vector<double> taus;
    for (int e = -200; e <= 200; e += 5)
        taus.push_back(std::pow(10.0, e / 100.0));
    const auto sweep = temperature_sweep(s, taus);
    QVector<double> tx, te, tm, tc;
    for (const TemperaturePoint& p : sweep) {
        tx.push_back(p.tau);
        te.push_back(p.entropy);
        tm.push_back(p.max_weight);
        tc.push_back(std::log(double(visible)));
    }
    sweep_->graph(0)->setData(tx, te);
    sweep_->graph(1)->setData(tx, tc);
    sweep_->graph(2)->setData(tx, tm);
    sweep_->xAxis->setRange(0.01, 100);
    sweep_->yAxis->setRange(0, std::log(double(visible)) * 1.1 + 0.05);
    tauMarker_->point1->setCoords(tau, 0);
    tauMarker_->point2->setCoords(tau, 1);

    const TemperaturePoint now = temperature_sweep(s, {tau}).front();
    setReadout(tr("<b>Query %1, head %2</b>, %3 visible keys, τ = %4<br>"
                  "H(α) = %5 nats (ceiling %6), max α = %7<br>"
                  "after N = %8 hard lookups: error %9 (1/√N guide %10)%11")
                   .arg(shown(i))
                   .arg(shown(h))
                   .arg(visible)
                   .arg(tau, 0, 'g', 3)
                   .arg(now.entropy, 0, 'f', 3)
                   .arg(std::log(double(visible)), 0, 'f', 3)
                   .arg(now.max_weight, 0, 'f', 3)
                   .arg(N)
                   .arg(hl.errors.back(), 0, 'g', 3)
                   .arg(sd / std::sqrt(double(N)), 0, 'g', 3)
                   .arg(vNote + sNote));
}
