// AttnScope — the "entropy" lens. GPL-3.0-or-later.
#include "lenses/entropy_lens.hpp"

#include <QCheckBox>
#include <QSpinBox>
#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/entropy.hpp"
#include "attn/util/error.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"

EntropyLens::EntropyLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("entropy"), LensInputs::Scene, parent) {
    setExplanation(
        tr("<b>Entropy dilution.</b> A row of weights over n keys has entropy between 0 (one "
           "key) and log n (uniform). With scores of fixed spread, the entropy follows log n "
           "up to a constant as the sequence grows: each key gets less, and a single relevant "
           "token drowns among many. The scene's curves repeat its sentence to length n."),
        tr("H(α) = −Σ<sub>j</sub> α<sub>j</sub> log α<sub>j</sub> &nbsp;≤&nbsp; log n<br>"
           "effective keys = e<sup>H</sup>; ceiling = mean over rows of log(#visible keys)"));
    maxN_ = addSpin("longest_n", tr("longest n"), 8, 2048, 256);
    dk_ = addSpin("d_k", tr("d<sub>k</sub> (random keys)"), 1, 512, 16);
    scale_ = addCheck("scale", tr("scale random scores by 1/√dₖ"), true);
    abs_ = addPlot(0, 0, tr("Mean row entropy vs sequence length"));
    rel_ = addPlot(1, 0, tr("Entropy as a fraction of its ceiling"));
    for (QCustomPlot* p : {abs_, rel_}) {
        p->xAxis->setLabel(tr("sequence length n (tokens)"));
        setLogAxis(p->xAxis);
        p->xAxis->setNumberFormat(QStringLiteral("g"));
        p->xAxis->setNumberPrecision(7);
    }
    abs_->yAxis->setLabel(tr("entropy H, nats"));
    rel_->yAxis->setLabel(tr("H / ceiling"));
    refreshWhenShown();
}

LensPanel::Compute EntropyLens::prepare() {
    const attn::SceneSpec spec = scene() ? scene()->spec() : attn::SceneSpec{};
    const int maxN = maxN_->value(), dk = dk_->value();
    const bool scaled = scale_->isChecked();
    return [this, spec, maxN, dk, scaled](attn::Progress&) -> Draw {
        using namespace attn::lenses;
        const std::vector<attn::Index> ns = geometric_range(1, maxN, 10);
        auto random = random_key_entropy(ns, dk, 32, 7, scaled);
        SceneEntropy se;
        QString note;
        try {
            se = scene_entropy(spec, ns);
        } catch (const attn::Error& e) {
            note = tr("<br><i>Scene curves unavailable: %1</i>").arg(QString::fromUtf8(e.what()));
        }
        return [this, spec, ns, random = std::move(random), se = std::move(se), note] {
            drawCurves(spec, ns, random, se, note);
        };
    };
}

void EntropyLens::drawCurves(const attn::SceneSpec& spec, const std::vector<attn::Index>& ns,
                             const std::vector<attn::lenses::EntropyPoint>& random,
                             const attn::lenses::SceneEntropy& se, const QString& note) {
    for (QCustomPlot* p : {abs_, rel_})
        p->clearGraphs();
    QVector<double> x, ceil, rnd, rndRel;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        x.push_back(double(ns[i]));
        ceil.push_back(random[i].ceiling);
        rnd.push_back(random[i].entropy);
        rndRel.push_back(random[i].ceiling > 0 ? random[i].entropy / random[i].ceiling : 1.0);
    }
    addGraph(abs_, tr("ceiling log n"), seriesColor(6), Qt::DashLine, 2)->setData(x, ceil);
    addGraph(abs_, tr("random keys, d_k = %1").arg(dk_->value()), seriesColor(1), Qt::SolidLine,
             2.5)
        ->setData(x, rnd);
    addGraph(rel_, tr("random keys"), seriesColor(1), Qt::SolidLine, 2.5)->setData(x, rndRel);
    QString heads;
    for (std::size_t h = 0; h < se.heads.size(); ++h) {
        QVector<double> sx, sy, sr;
        for (std::size_t i = 0; i < se.ns.size(); ++i) {
            sx.push_back(double(se.ns[i]));
            sy.push_back(se.heads[h][i]);
            sr.push_back(se.ceiling[i] > 0 ? se.heads[h][i] / se.ceiling[i] : 1.0);
        }
        const QColor c = seriesColor(int(h) % 2 == 0 ? 0 : 2).darker(100 + 25 * int(h / 2));
        const QString name = tr("scene head %1").arg(h + 1);
        auto* g = addGraph(abs_, name, c, Qt::SolidLine, 1.5);
        g->setData(sx, sy);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        addGraph(rel_, name, c, Qt::SolidLine, 1.5)->setData(sx, sr);
        heads += tr("head %1: H = %2 of %3<br>")
                     .arg(h + 1)
                     .arg(se.heads[h].back(), 0, 'f', 2)
                     .arg(se.ceiling.back(), 0, 'f', 2);
    }
    if (!se.ceiling.empty()) {
        QVector<double> sc(se.ceiling.begin(), se.ceiling.end()), sx;
        for (auto n : se.ns)
            sx.push_back(double(n));
        if (spec.mask.kind != attn::MaskKind::None)
            addGraph(abs_, tr("scene ceiling (masked)"), seriesColor(4), Qt::DotLine, 2)
                ->setData(sx, sc);
    }
    abs_->xAxis->setRange(0.8, double(ns.back()) * 1.25);
    rel_->xAxis->setRange(0.8, double(ns.back()) * 1.25);
    abs_->yAxis->setRange(0, std::log(double(ns.back())) * 1.08);
    rel_->yAxis->setRange(0, 1.05);
    setReadout(tr("<b>At n = %1</b> (log n = %2 nats):<br>random keys: H = %3<br>%4"
                  "n = 1 … %1 on a geometric grid; random rows averaged over 32 draws.%5")
                   .arg(ns.back())
                   .arg(std::log(double(ns.back())), 0, 'f', 2)
                   .arg(random.back().entropy, 0, 'f', 2)
                   .arg(heads)
                   .arg(note));
}
