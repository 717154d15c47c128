// AttnScope — "show the math": one query's attention worked out with the numbers.
// GPL-3.0-or-later.
#include "views/math_panel.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/multihead.hpp"
#include "views/token_labels.hpp"

namespace {

QString vectorText(const attn::Matrix& m, attn::Index row, attn::Index col0, attn::Index count,
                   int shown = 6) {
    if (row < 0 || row >= m.rows() || col0 < 0 || col0 + count > m.cols() || count <= 0)
        return QStringLiteral("—");
    QStringList parts;
    const attn::Index head = count <= shown + 2 ? count : shown;
    for (attn::Index c = 0; c < head; ++c)
        parts << QString::number(m(row, col0 + c), 'f', 3);
    if (head < count)
        parts << QStringLiteral("…") << QString::number(m(row, col0 + count - 1), 'f', 3);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString scoreFormula(attn::ScoreKind kind) {
    switch (kind) {
        case attn::ScoreKind::General:
            return QObject::tr("q W k<sub>j</sub>ᵀ (general)");
        case attn::ScoreKind::Additive:
            return QObject::tr("vᵀ tanh(q W<sub>a</sub> + k<sub>j</sub> U<sub>a</sub>) (additive)");
        case attn::ScoreKind::Rbf:
            return QObject::tr("−‖q − k<sub>j</sub>‖² / 2σ² (RBF)");
        case attn::ScoreKind::Dot:
            break;
    }
    return QObject::tr("q · k<sub>j</sub> (dot product)");
}

}  // namespace

QString mathNumber(double v) {
    if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(v, 'f', 4);
}

QString mathHtml(const attn::SceneResult& r, const Selection& sel, const MathContext& ctx,
                 int maxKeys) {
    const int h = sel.head, q = sel.query;
    if (h < 0 || h >= int(r.heads.size()) || q < 0 || q >= int(r.q_tokens.size()))
        return QObject::tr(
            "<p>Click a cell or a row label of a heatmap: the computation of that "
            "query is worked out here, number by number.</p>");
    const attn::HeadResult& head = r.heads[std::size_t(h)];
    const int m = int(head.weights.cols());
    const bool hasStages = !r.weights_only && (head.has_stages() || r.has_vectors);
    // One query's rows, stored or recomputed from Q and K (long sequences keep no stages).
    Eigen::RowVectorXf raw, scaled, masked;
    if (hasStages) {
        raw = r.raw_row(h, q);
        scaled = r.scaled_row(h, q);
        masked = r.masked_row(h, q);
    }
    const attn::Index dk = r.d_k;
    const int heads = int(r.heads.size());
    const attn::Index kvh = attn::kv_head_of(h, heads, r.kv_heads > 0 ? r.kv_heads : heads);

    QString html;
    if (sel.queries.size() > 1) {
        // Several queries: the Lines, Text and Rollout views show their combination.
        QStringList names;
        for (int s : sel.queries)
            if (s >= 0 && s < int(r.q_tokens.size()))
                names << QStringLiteral("%1 “%2”").arg(s).arg(
                    tokenText(r.q_tokens[std::size_t(s)]).toHtmlEscaped());
        html += QObject::tr(
                    "<p><b>%1 queries selected</b> (%2): the views show the <b>%3</b> "
                    "of their weights%4. Worked out below: query %5 alone.</p>")
                    .arg(sel.queries.size())
                    .arg(names.join(QStringLiteral(", ")))
                    .arg(sel.sum ? QObject::tr("sum") : QObject::tr("mean"))
                    .arg(sel.sum ? QObject::tr(" (a row then sums to the number of queries)")
                                 : QString())
                    .arg(q);
    }
    html += QObject::tr("<h3>Query %1 “%2”, head %3</h3>")
                .arg(q)
                .arg(tokenText(r.q_tokens[std::size_t(q)]).toHtmlEscaped())
                .arg(h + 1);
    if (hasStages) {
        html += QObject::tr(
                    "<p>d<sub>k</sub> = %1 · score s(q, k<sub>j</sub>) = %2 · scale "
                    "factor %3 · temperature τ = %4</p>")
                    .arg(dk)
                    .arg(scoreFormula(ctx.score))
                    .arg(mathNumber(head.scale_factor))
                    .arg(ctx.temperature <= attn::kHardTemperature
                             ? QObject::tr("0 (hard max)")
                             : QString::number(double(ctx.temperature), 'g', 4));
    }
    if (r.has_vectors) {
        html += QObject::tr(
                    "<p><b>1. Query</b> q = x<sub>%1</sub> W<sub>q</sub> (head %2 slice) "
                    "= <tt>%3</tt></p>")
                    .arg(q)
                    .arg(h + 1)
                    .arg(vectorText(r.Q, q, attn::Index(h) * dk, dk));
    }

    // Which keys to list: all, or the heaviest plus the selected one, in key order.
    std::vector<int> keys(static_cast<std::size_t>(m));
    std::iota(keys.begin(), keys.end(), 0);
    if (m > maxKeys) {
        std::partial_sort(keys.begin(), keys.begin() + maxKeys, keys.end(),
                          [&](int a, int b) { return head.weights(q, a) > head.weights(q, b); });
        keys.resize(std::size_t(maxKeys));
        if (sel.key >= 0 && sel.key < m &&
            std::find(keys.begin(), keys.end(), sel.key) == keys.end())
            keys.back() = sel.key;
        std::sort(keys.begin(), keys.end());
    }
    html += QObject::tr("<p><b>2. Scores and weights</b>%1</p>")
                .arg(m > maxKeys ? QObject::tr(" — the %1 largest of %2 keys").arg(maxKeys).arg(m)
                                 : QString());
    // Aligned monospace rows rather than an HTML table: QTextDocument lays tables out an order
    // of magnitude slower, and the panel follows every control change.
    const auto cell = [](const QString& text, int width) {
        return text.rightJustified(width, QLatin1Char(' ')).toHtmlEscaped();
    };
    html += QStringLiteral("<pre>");
    QString header = cell(QStringLiteral("j"), 2) + QLatin1Char(' ') +
                     QStringLiteral("key").leftJustified(10, QLatin1Char(' '));
    if (hasStages)
        header += cell(QStringLiteral("s(q,k)"), 8) + cell(QObject::tr("scaled"), 8) +
                  cell(QObject::tr("masked"), 8);
    header += cell(QObject::tr("weight"), 8);
    html += QStringLiteral("<b>%1</b>\n").arg(header);
    for (int k : keys) {
        QString row = cell(QString::number(k), 2) + QLatin1Char(' ') +
                      elideToken(r.k_tokens[std::size_t(k)], 9)
                          .leftJustified(10, QLatin1Char(' '))
                          .toHtmlEscaped();
        if (hasStages)
            row += cell(mathNumber(raw(k)), 8) + cell(mathNumber(scaled(k)), 8) +
                   cell(mathNumber(masked(k)), 8);
        row += QStringLiteral("<b>%1</b>").arg(cell(mathNumber(head.weights(q, k)), 8));
        if (k == sel.key)
            row = QStringLiteral("<span style='background-color:rgba(230,30,30,70)'>%1</span>")
                      .arg(row);
        html += row + QLatin1Char('\n');
    }
    html += QStringLiteral("</pre>");
    if (r.has_vectors && sel.key >= 0 && sel.key < m)
        html += QObject::tr(
                    "<p>Key %1 “%2”: k<sub>%1</sub> = <tt>%3</tt><br/>value "
                    "v<sub>%1</sub> = <tt>%4</tt></p>")
                    .arg(sel.key)
                    .arg(tokenText(r.k_tokens[std::size_t(sel.key)]).toHtmlEscaped())
                    .arg(vectorText(r.K, sel.key, kvh * dk, dk))
                    .arg(vectorText(r.V, sel.key, kvh * dk, dk));

    if (hasStages) {
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int k = 0; k < m; ++k)
            top = std::max(top, double(masked(k)));
        if (std::isfinite(top))
            for (int k = 0; k < m; ++k)
                sum += std::exp(double(masked(k)) - top);
        html += QObject::tr(
                    "<p><b>3. Softmax</b> α<sub>j</sub> = exp(m<sub>j</sub> − %1) / %2, "
                    "where m<sub>j</sub> is the masked score and %1 its maximum; "
                    "masked keys (−∞) get exactly 0.</p>")
                    .arg(mathNumber(top))
                    .arg(mathNumber(sum));
    }
    const double total = head.weights.row(q).cast<double>().sum();
    html += QObject::tr("<p>Σ α<sub>j</sub> = %1%2</p>")
                .arg(mathNumber(total))
                .arg(q < int(head.empty_rows.size()) && head.empty_rows[std::size_t(q)]
                         ? QObject::tr(" — every key is masked: this query attends to nothing")
                         : QString());
    if (head.output.rows() > q || (!r.weights_only && r.has_vectors)) {
        const attn::Matrix o = r.output_row(h, q);  // stored, or α · V for this query
        html +=
            QObject::tr("<p><b>4. Output</b> o = Σ α<sub>j</sub> v<sub>j</sub> = <tt>%1</tt></p>")
                .arg(vectorText(o, 0, 0, o.cols()));
    }
    return html;
}

MathPanel::MathPanel(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    setFont(f);
    setToolTip(tr("The selected query's attention, step by step, with the numbers"));
    rebuild();
}

void MathPanel::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    rebuild();
}

void MathPanel::setSelection(const Selection& selection) {
    selection_ = selection;
    rebuild();
}

void MathPanel::setContext(const MathContext& context) {
    // No rebuild: a new context always comes with a new result, which rebuilds.
    context_ = context;
}

void MathPanel::rebuild() {
    const int scroll = verticalScrollBar()->value();
    if (!result_)
        setHtml(tr("<p>Computing…</p>"));
    else
        setHtml(mathHtml(*result_, selection_, context_));
    verticalScrollBar()->setValue(scroll);  // keep the reader's place while values change
}
