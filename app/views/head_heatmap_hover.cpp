// AttnScope — what a head's heatmap says under the mouse: a cell's numbers, a token, the
// meaning of the title's statistics. GPL-3.0-or-later.
#include <algorithm>
#include <cmath>

#include <QTextDocumentFragment>

#include "model/numbering.hpp"
#include "views/head_heatmap.hpp"
#include "views/token_labels.hpp"

namespace {

QString number(double v) {
    if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(v, 'f', 4);
}

const std::string& tokenAt(const std::vector<std::string>& tokens, int i) {
    static const std::string none;
    return i >= 0 && i < int(tokens.size()) ? tokens[std::size_t(i)] : none;
}

}  // namespace

bool HeadHeatmap::cellNumbers(int q, int k, CellNumbers* out) const {
    const SceneResultPtr& r = result();
    if (!r || head_ >= int(r->heads.size())) return false;
    const attn::HeadResult& h = r->heads[std::size_t(head_)];
    if (q < 0 || k < 0 || q >= queries() || k >= keys()) return false;
    out->query = tokenText(tokenAt(r->q_tokens, q));
    out->key = tokenText(tokenAt(r->k_tokens, k));
    out->masked = r->is_masked(head_, q, k);
    out->weight = r->weight(head_, q, k);  // stored, or from Q and K
    if (r->has_scores && (h.has_stages() || r->has_vectors)) {
        // Without stored stages the row is recomputed: d_k multiply-adds per key, microseconds.
        const Eigen::RowVectorXf raw = r->raw_row(head_, q);
        out->raw = raw(k);
        float scaled = 0, capped = 0;
        attn::score_stages(h, &raw(k), q, k, 1, nullptr,
                           {.scaled = &scaled, .softcapped = &capped});
        out->scaled = scaled;
        if (h.shaped()) out->softcapped = capped;
    }
    return true;
}

QString HeadHeatmap::cellDescription(int q, int k) const {
    CellNumbers c;
    if (!cellNumbers(q, k, &c)) return {};
    QString text = tr("<b>%1</b> (query %2) → <b>%3</b> (key %4)<br/>")
                       .arg(c.query.toHtmlEscaped())
                       .arg(shown(q))
                       .arg(c.key.toHtmlEscaped())
                       .arg(shown(k));
    if (!std::isnan(c.raw))
        text += tr("raw score %1<br/>scaled score %2<br/>").arg(number(c.raw), number(c.scaled));
    if (!std::isnan(c.softcapped))
        text += tr("soft-capped score %1<br/>").arg(number(c.softcapped));
    text +=
        c.masked ? tr("<i>masked</i> — weight 0") : tr("weight <b>%1</b>").arg(number(c.weight));
    const attn::AggregatedGrid& grid = cells();
    if (grid.rowFactor > 1 || grid.colFactor > 1) {
        // Blocks start at the region's first row and column (a zoomed view is not at 0, 0).
        const int r = int((q - grid.firstRow) / grid.rowFactor);
        const int col = int((k - grid.firstCol) / grid.colFactor);
        if (r >= 0 && col >= 0 && r < grid.rows && col < grid.cols) {
            const attn::Index q0 = grid.firstRow + attn::Index(r) * grid.rowFactor;
            const attn::Index k0 = grid.firstCol + attn::Index(col) * grid.colFactor;
            const attn::Index qEnd = grid.firstRow + grid.regionRows;
            const attn::Index kEnd = grid.firstCol + grid.regionCols;
            text +=
                tr("<br/>drawn cell: %1 of queries %2–%3 × keys %4–%5 = %6")
                    .arg(model_->aggregation() == attn::Aggregation::Max ? tr("max") : tr("mean"))
                    .arg(shown(q0))
                    .arg(std::min(qEnd, q0 + grid.rowFactor))  // the last, from 1
                    .arg(shown(k0))
                    .arg(std::min(kEnd, k0 + grid.colFactor))
                    .arg(number(grid.at(r, col)));
        }
    }
    return text;
}

QString HeadHeatmap::cellSummary(int q, int k) const {
    CellNumbers c;
    if (!cellNumbers(q, k, &c)) return {};
    // The numbers first: a narrow window elides the end of the line, never the numbers.
    QString text = c.masked ? tr("masked, weight 0") : tr("weight %1").arg(number(c.weight));
    if (!std::isnan(c.raw))
        text += tr(" · raw %1 · scaled %2").arg(number(c.raw), number(c.scaled));
    return text + tr(" — head %1 · query %2 “%3” → key %4 “%5”")
                      .arg(shown(head_))
                      .arg(shown(q))
                      .arg(c.query)
                      .arg(shown(k))
                      .arg(c.key);
}

QString HeadHeatmap::statsExplanation() {
    return tr(
        "<b>H</b>: entropy of a query's weights, in nats, averaged over the queries (0: each "
        "query attends to one key; ln n: uniform over n keys)<br/><b>max</b>: the largest "
        "weight of a query, averaged over the queries<br/><b>dist</b>: mean attention "
        "distance Σ<sub>j</sub> α<sub>j</sub> |i − j|, in token positions");
}

QString HeadHeatmap::toolTipAt(const QPoint& pos) const {
    if (title_->outerRect().contains(pos))
        return tr("<b>Head %1</b> (head %2 in exported numbers, census files and --head, which "
                  "count from 0)<br/>")
                   .arg(shown(head_))
                   .arg(head_) +
               statsExplanation();
    const QPoint cell = cellAt(pos);
    if (cell.x() >= 0 && cell.y() >= 0) return cellDescription(cell.y(), cell.x());
    const SceneResultPtr& r = result();
    if (cell.y() >= 0 && r)
        return tr("query %1: %2 — click to select")
            .arg(shown(cell.y()))
            .arg(tokenText(tokenAt(r->q_tokens, cell.y())).toHtmlEscaped());
    if (cell.x() >= 0 && r)
        return tr("key %1: %2")
            .arg(shown(cell.x()))
            .arg(tokenText(tokenAt(r->k_tokens, cell.x())).toHtmlEscaped());
    return {};
}

QString HeadHeatmap::readoutAt(const QPoint& pos) const {
    const QPoint cell = cellAt(pos);
    if (cell.x() >= 0 && cell.y() >= 0) return cellSummary(cell.y(), cell.x());
    // A label (the whole token, however elided on the axis) or the title, on one line.
    QString html = toolTipAt(pos);
    html.replace(QStringLiteral("<br/>"), QStringLiteral(" · "));
    return QTextDocumentFragment::fromHtml(html).toPlainText().simplified();
}
