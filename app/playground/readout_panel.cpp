// AttnScope — the playground's readout. GPL-3.0-or-later.
#include "playground/readout_panel.hpp"

#include <QScrollBar>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

/// Rows of the weights listing; more keys than this are shown heaviest first.
constexpr std::size_t kMaxRows = 12;

QString num(double x, int prec = 4) {
    return QString::number(x, 'f', prec);
}

QString point(const Eigen::Vector2d& p, int prec = 3) {
    return QStringLiteral("(%1, %2)").arg(num(p.x(), prec), num(p.y(), prec));
}

QString scoreFormula(const attn::PlaygroundState& s) {
    switch (s.score) {
        case attn::ScoreKind::Dot:
            return QStringLiteral("s = q\u00b7k");
        case attn::ScoreKind::General:
            return QStringLiteral("s = q\u1d40Wk, W = [[%1, %2], [%3, %4]]")
                .arg(num(s.W(0, 0), 2), num(s.W(0, 1), 2), num(s.W(1, 0), 2), num(s.W(1, 1), 2));
        case attn::ScoreKind::Additive:
            return QStringLiteral("s = v\u2090\u1d40 tanh(W\u2090q + U\u2090k)");
        case attn::ScoreKind::Rbf:
            return QStringLiteral(
                       "s = \u2212\u2016q\u2212k\u2016\u00b2/(2\u03c3\u00b2), \u03c3 = %1")
                .arg(num(s.sigma, 2));
    }
    return {};
}

}  // namespace

ReadoutPanel::ReadoutPanel(PlaygroundModel* model, QWidget* parent)
    : QTextBrowser(parent), model_(model) {
    setObjectName(QStringLiteral("playgroundReadout"));
    setMinimumSize(260, 160);
    setOpenLinks(false);
    connect(model_, &PlaygroundModel::changed, this, &ReadoutPanel::refresh);
    refresh();
}

void ReadoutPanel::refresh() {
    // Keep the scroll position: the panel refreshes at drag rate.
    const int scroll = verticalScrollBar()->value();
    setHtml(model_->error().isEmpty() ? playgroundReadoutHtml(model_->state(), model_->result())
                                      : model_->error().toHtmlEscaped());
    verticalScrollBar()->setValue(scroll);
}

QString playgroundReadoutHtml(const attn::PlaygroundState& s, const attn::PlaygroundResult& r) {
    const int i = s.selected_query;
    if (i < 0 || static_cast<std::size_t>(i) >= s.queries.size() ||
        static_cast<std::size_t>(i) >= r.outputs.size())
        return QObject::tr("<p>Add a query (Shift+double-click in the query/key plane).</p>");
    const auto ii = static_cast<std::size_t>(i);
    QString h;
    const QString color = PlaygroundModel::queryColor(i).name();
    h += QStringLiteral("<p><b style='color:%1'>q%2</b> = %3 &nbsp; %4</p>")
             .arg(color)
             .arg(i + 1)
             .arg(point(s.queries[ii]), scoreFormula(s));
    const bool scalable = attn::score_is_scalable(s.score);
    const bool hard = s.temperature <= attn::kHardTemperature;
    QStringList factor;  // the steps from s to the logit, in order
    if (scalable)
        factor << QObject::tr("\u00d7\u221a(N/2) = \u00d7%1 (as if d<sub>k</sub> = %2)")
                      .arg(num(r.multiplier, 3))
                      .arg(s.as_if_dk);
    if (scalable && s.scale)
        factor
            << QObject::tr("\u00f7\u221aN = \u00f7%1").arg(num(std::sqrt(double(s.as_if_dk)), 3));
    factor << (hard ? QObject::tr("\u03c4 \u2192 0: argmax")
                    : QObject::tr("\u00f7\u03c4 (\u03c4 = %1)").arg(num(s.temperature, 2)));
    h += QObject::tr("<p style='color:gray'>logit = s %1</p>")
             .arg(factor.join(QStringLiteral(", ")));
    // A monospace block, not an HTML table: QTextDocument lays tables out an order of magnitude
    // slower, and this panel refreshes at drag rate. With many keys only the heaviest are listed.
    std::vector<std::size_t> rows(s.keys.size());
    std::iota(rows.begin(), rows.end(), 0);
    const std::size_t shown = std::min<std::size_t>(rows.size(), kMaxRows);
    if (r.head.weights.cols() == static_cast<Eigen::Index>(rows.size()) && rows.size() > kMaxRows) {
        std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown),
                          rows.end(), [&](std::size_t a, std::size_t b) {
                              return r.head.weights(i, static_cast<Eigen::Index>(a)) >
                                     r.head.weights(i, static_cast<Eigen::Index>(b));
                          });
        rows.resize(shown);
        std::sort(rows.begin(), rows.end());
    }
    QString pre = QStringLiteral("key         s    logit       \u03b1  v\n");
    for (std::size_t j : rows) {
        if (r.head.weights.cols() == 0) break;
        const auto jj = static_cast<Eigen::Index>(j);
        const bool masked = s.is_masked(j);
        pre +=
            QStringLiteral("%1 %2 %3 %4  %5\n")
                .arg(QStringLiteral("k%1%2").arg(j + 1).arg(masked ? QStringLiteral("\u00d7")
                                                                   : QString()),
                     -5)
                .arg(num(r.raw2d(i, jj), 3), 8)
                .arg(masked ? QStringLiteral("\u2212\u221e") : num(r.head.masked_at(i, jj), 3), 8)
                .arg(num(r.head.weights(i, jj)), 7)
                .arg(point(s.values[j], 2));
    }
    if (rows.size() < s.keys.size())
        pre += QObject::tr("\u2026 %1 lighter keys not listed\n").arg(s.keys.size() - rows.size());
    h += QStringLiteral("<pre>%1</pre>").arg(pre.toHtmlEscaped());
    if (r.empty[ii]) {
        h += QObject::tr(
            "<p><b>Every key is masked for this query:</b> its weights are all 0 and its "
            "output is defined as o = (0, 0), not NaN.</p>");
        return h;
    }
    h += QObject::tr(
             "<p><b>o%1 = \u03a3 \u03b1<sub>j</sub> v<sub>j</sub> = %2</b>, \u03a3\u03b1 = %3</p>")
             .arg(i + 1)
             .arg(point(r.outputs[ii]), num(r.head.weights.row(i).sum()));
    h += r.inside[ii] ? QObject::tr(
                            "<p style='color:#2e7d32'>\u2714 inside the convex hull of the values: "
                            "\u03b1 \u2265 0 and \u03a3\u03b1 = 1 are barycentric weights.</p>")
                      : QObject::tr("<p style='color:#c62828'>\u2718 outside the hull</p>");
    const Eigen::VectorXd& l = r.hull_coords[ii];
    if (l.size() > 0) {
        QStringList terms;
        for (Eigen::Index k = 0; k < l.size(); ++k)
            terms << QStringLiteral("%1\u00b7v%2")
                         .arg(num(l[k], 3))
                         .arg(r.hull[static_cast<std::size_t>(k)] + 1);
        h += QObject::tr("<p>On the hull's corners (mean-value coordinates): o = %1</p>")
                 .arg(terms.join(QStringLiteral(" + ")));
    }
    if (s.hard_sample && r.sampled[ii] >= 0) {
        const auto j = static_cast<std::size_t>(r.sampled[ii]);
        h += QObject::tr(
                 "<p>Hard attention: sampled k%1 ~ Cat(\u03b1) (seed %2) \u2192 v%1 = %3, "
                 "beside the soft expectation o = %4.</p>")
                 .arg(j + 1)
                 .arg(s.seed)
                 .arg(point(s.values[j]), point(r.outputs[ii]));
    }
    return h;
}
