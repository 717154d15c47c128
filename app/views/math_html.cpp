// AttnScope — "show the math" as HTML: one query's attention worked out with the numbers.
// GPL-3.0-or-later.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/attention/multihead.hpp"
#include "model/numbering.hpp"
#include "views/math_notes.hpp"
#include "views/math_panel.hpp"
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

QString link(const QString& href, const QString& text) {
    return QStringLiteral("<a href='%1'>%2</a>").arg(href, text);
}

/// Which keys the table lists, in key order, and the sentence saying so (with its links).
std::vector<int> listedKeys(const Eigen::RowVectorXf& weights, int selectedKey, int m, int maxKeys,
                            const MathPage& page, QString* caption) {
    std::vector<int> keys(static_cast<std::size_t>(m));
    std::iota(keys.begin(), keys.end(), 0);
    if (m <= maxKeys) return keys;
    const int pages = (m + maxKeys - 1) / maxKeys;
    QStringList links;
    if (page.page < 0) {
        std::partial_sort(keys.begin(), keys.begin() + maxKeys, keys.end(),
                          [&](int a, int b) { return weights(a) > weights(b); });
        keys.resize(std::size_t(maxKeys));
        if (selectedKey >= 0 && selectedKey < m &&
            std::find(keys.begin(), keys.end(), selectedKey) == keys.end())
            keys.back() = selectedKey;
        std::sort(keys.begin(), keys.end());
        *caption = QObject::tr(" — the %1 largest of %2 keys").arg(maxKeys).arg(m);
        links << link(QLatin1String(kMathLinkPage) + QLatin1Char('0'),
                      QObject::tr("every key, %1 at a time").arg(maxKeys));
    } else {
        const int p = std::min(page.page, pages - 1);
        const int first = p * maxKeys, last = std::min(m, first + maxKeys) - 1;
        keys.assign(std::size_t(last - first + 1), 0);
        std::iota(keys.begin(), keys.end(), first);
        *caption = QObject::tr(" — keys %1–%2 of %3 (page %4 of %5)")
                       .arg(shown(first))
                       .arg(shown(last))
                       .arg(m)
                       .arg(p + 1)
                       .arg(pages);
        if (p > 0)
            links << link(QLatin1String(kMathLinkPage) + QString::number(p - 1),
                          QObject::tr("◀ keys %1–%2").arg(shown(first - maxKeys)).arg(first));
        if (p + 1 < pages)
            links << link(QLatin1String(kMathLinkPage) + QString::number(p + 1),
                          QObject::tr("keys %1–%2 ▶")
                              .arg(shown(last + 1))
                              .arg(std::min(m, last + 1 + maxKeys)));
        links << link(QLatin1String(kMathLinkLargest), QObject::tr("the %1 largest").arg(maxKeys));
    }
    *caption += QStringLiteral("<br/>") + links.join(QStringLiteral(" · "));
    return keys;
}

/// Monospace columns as wide as their widest entry (numbers right-aligned, tokens left).
QString table(const std::vector<QStringList>& rows, const std::vector<bool>& leftAligned,
              int highlightRow) {
    std::vector<int> width(leftAligned.size(), 0);
    for (const QStringList& r : rows)
        for (int c = 0; c < r.size(); ++c)
            width[std::size_t(c)] = std::max(width[std::size_t(c)], int(r[c].size()));
    QString out = QStringLiteral("<pre>");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QStringList cells;
        for (int c = 0; c < rows[i].size(); ++c) {
            const int w = width[std::size_t(c)];
            cells << (leftAligned[std::size_t(c)] ? rows[i][c].leftJustified(w)
                                                  : rows[i][c].rightJustified(w))
                         .toHtmlEscaped();
        }
        QString line = cells.join(QStringLiteral("  "));
        if (i == 0)
            line = QStringLiteral("<b>%1</b>").arg(line);
        else if (int(i) == highlightRow)
            line = QStringLiteral("<span style='background-color:rgba(230,30,30,70)'>%1</span>")
                       .arg(line);
        out += line + QLatin1Char('\n');
    }
    return out + QStringLiteral("</pre>");
}

}  // namespace

QString mathNumber(double v) {
    if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(v, 'f', 4);
}

namespace {

/// What happens between the scaled and the masked scores of a soft-capping (or biased) head.
QString shapedStagesNote(const attn::HeadResult& head) {
    QStringList steps;
    if (head.softcap > 0.f)
        steps << QObject::tr("soft-capped = %1 · tanh(scaled / %1)").arg(mathNumber(head.softcap));
    if (head.bias) steps << QObject::tr("+ the head's position bias b(i, j)");
    QString text = QObject::tr("<p>score → scaled → %1 → masked → softmax: %2")
                       .arg(head.softcap > 0.f ? QObject::tr("soft-capped") : QObject::tr("biased"))
                       .arg(steps.join(QStringLiteral(" ")));
    if (head.tempering != 1.f) text += QObject::tr(", then ÷ τ (masked = soft-capped ÷ τ)");
    return text + QStringLiteral("</p>");
}

}  // namespace

QString mathHtml(const attn::SceneResult& r, const Selection& sel, const MathContext& ctx,
                 int maxKeys, const MathPage& page) {
    const int h = sel.head, q = sel.query;
    if (h < 0 || h >= int(r.heads.size()) || q < 0 || q >= int(r.q_tokens.size()))
        return QObject::tr(
            "<p>Click a cell or a row label of a heatmap: the computation of that "
            "query is worked out here, number by number.</p>");
    const attn::HeadResult& head = r.heads[std::size_t(h)];
    // Stored, or recomputed from Q and K for a long (streamed) scene.
    const Eigen::RowVectorXf weights = r.weights_row(h, q);
    const int m = int(weights.size());
    const bool hasStages = r.has_scores && (head.has_stages() || r.has_vectors);
    const bool hard = ctx.temperature <= attn::kHardTemperature;
    // One query's rows, stored or recomputed from Q and K (long sequences keep no stages).
    Eigen::RowVectorXf raw, scaled, softcapped, masked;
    // Soft-capping (or a position bias) adds a stage between the scaled and masked scores.
    const bool shaped = hasStages && head.shaped();
    if (hasStages) {
        raw = r.raw_row(h, q);
        scaled = r.scaled_row(h, q);
        if (shaped) softcapped = r.softcapped_row(h, q);
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
                names << QStringLiteral("%1 “%2”").arg(shown(s)).arg(
                    tokenText(r.q_tokens[std::size_t(s)]).toHtmlEscaped());
        html += QObject::tr(
                    "<p><b>%1 queries selected</b> (%2): the views show the <b>%3</b> "
                    "of their weights%4. Worked out below: query %5 alone.</p>")
                    .arg(sel.queries.size())
                    .arg(names.join(QStringLiteral(", ")))
                    .arg(sel.sum ? QObject::tr("sum") : QObject::tr("mean"))
                    .arg(sel.sum ? QObject::tr(" (a row then sums to the number of queries)")
                                 : QString())
                    .arg(shown(q));
    }
    html += QObject::tr("<h3>Query %1 “%2”, head %3</h3>")
                .arg(shown(q))
                .arg(tokenText(r.q_tokens[std::size_t(q)]).toHtmlEscaped())
                .arg(shown(h));
    html += mergedWordsNote(r, q);
    html += selectedKeysNote(r, sel);
    if (hasStages) {
        html += QObject::tr(
                    "<p>d<sub>k</sub> = %1 · score s(q, k<sub>j</sub>) = %2 · scale "
                    "factor %3 · temperature τ = %4</p>")
                    .arg(dk)
                    .arg(scoreFormula(ctx.score))
                    .arg(mathNumber(head.scale_factor))
                    .arg(hard ? QObject::tr("0 (hard max)")
                              : QString::number(double(ctx.temperature), 'g', 4));
        if (shaped) html += shapedStagesNote(head);
    }
    if (r.has_vectors) {
        html += QObject::tr(
                    "<p><b>1. Query</b> q = x<sub>%1</sub> W<sub>q</sub> (head %2 slice) "
                    "= <tt>%3</tt></p>")
                    .arg(shown(q))
                    .arg(shown(h))
                    .arg(vectorText(r.Q, q, attn::Index(h) * dk, dk));
    }

    QString caption;
    const std::vector<int> keys = listedKeys(weights, sel.key, m, maxKeys, page, &caption);
    html += QObject::tr("<p><b>2. Scores and weights</b>%1</p>").arg(caption);
    // Aligned monospace rows rather than an HTML table: QTextDocument lays tables out an order
    // of magnitude slower, and the panel follows every control change.
    std::vector<QStringList> rows;
    QStringList header{QStringLiteral("j"), QObject::tr("key")};
    if (hasStages) header << QStringLiteral("s(q,k)") << QObject::tr("scaled");
    if (shaped) header << (head.softcap > 0.f ? QObject::tr("soft-capped") : QObject::tr("biased"));
    if (hasStages) header << QObject::tr("masked");
    header << QObject::tr("weight");
    rows.push_back(header);
    int highlight = -1;
    for (int k : keys) {
        QStringList row{QString::number(shown(k)), elideToken(r.k_tokens[std::size_t(k)], 12)};
        if (hasStages) row << mathNumber(raw(k)) << mathNumber(scaled(k));
        if (shaped) row << mathNumber(softcapped(k));
        if (hasStages) row << mathNumber(masked(k));
        row << mathNumber(weights(k));
        if (k == sel.key) highlight = int(rows.size());
        rows.push_back(row);
    }
    std::vector<bool> left(std::size_t(header.size()), false);
    left[1] = true;
    html += table(rows, left, highlight);

    if (r.has_vectors) {
        html +=
            QStringLiteral("<p>") +
            link(QLatin1String(kMathLinkKeys),
                 page.allKeys ? QObject::tr("hide the listed k<sub>j</sub> and v<sub>j</sub>")
                              : QObject::tr("show every listed k<sub>j</sub> and v<sub>j</sub>")) +
            QStringLiteral("</p>");
        if (page.allKeys) {
            for (int k : keys)
                html += QObject::tr(
                            "<p>%1 “%2”: k<sub>%1</sub> = <tt>%3</tt><br/>v<sub>%1</sub> = "
                            "<tt>%4</tt></p>")
                            .arg(shown(k))
                            .arg(tokenText(r.k_tokens[std::size_t(k)]).toHtmlEscaped())
                            .arg(vectorText(r.K, k, kvh * dk, dk))
                            .arg(vectorText(r.V, k, kvh * dk, dk));
        } else if (sel.key >= 0 && sel.key < m) {
            html += QObject::tr(
                        "<p>Key %1 “%2”: k<sub>%1</sub> = <tt>%3</tt><br/>value "
                        "v<sub>%1</sub> = <tt>%4</tt></p>")
                        .arg(shown(sel.key))
                        .arg(tokenText(r.k_tokens[std::size_t(sel.key)]).toHtmlEscaped())
                        .arg(vectorText(r.K, sel.key, kvh * dk, dk))
                        .arg(vectorText(r.V, sel.key, kvh * dk, dk));
        }
    }

    if (hasStages) {
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int k = 0; k < m; ++k)
            top = std::max(top, double(masked(k)));
        if (hard) {
            // τ → 0: the softmax becomes the argmax; ties share the weight equally.
            QStringList winners;
            for (int k = 0; k < m && std::isfinite(top); ++k)
                if (double(masked(k)) == top)
                    winners << QStringLiteral("%1 “%2”").arg(shown(k)).arg(
                        tokenText(r.k_tokens[std::size_t(k)]).toHtmlEscaped());
            html += QObject::tr(
                        "<p><b>3. Hard max</b> (τ = 0, the limit τ → 0 of the softmax): "
                        "α<sub>j</sub> = 1/c for the c key(s) whose masked score m<sub>j</sub> "
                        "equals the maximum %1, and 0 for every other key; no exponentials.<br/>"
                        "Here c = %2 (key %3), so α = %4.</p>")
                        .arg(mathNumber(top))
                        .arg(winners.size())
                        .arg(winners.join(QStringLiteral(", ")))
                        .arg(winners.isEmpty() ? QStringLiteral("0")
                                               : mathNumber(1.0 / double(winners.size())));
        } else {
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
    }
    const double total = weights.cast<double>().sum();
    QString note;
    if (q < int(head.empty_rows.size()) && head.empty_rows[std::size_t(q)])
        note = QObject::tr(" — every key is masked: this query attends to nothing");
    else if (!ctx.rowNote.isEmpty() && total < 0.9995)
        note = QObject::tr(" — below 1 here: %1").arg(ctx.rowNote.toHtmlEscaped());
    html += QObject::tr("<p>Σ α<sub>j</sub> = %1%2</p>").arg(mathNumber(total)).arg(note);
    if (head.output.rows() > q || (r.has_scores && r.has_vectors)) {
        const attn::Matrix o = r.output_row(h, q);  // stored, or α · V for this query
        html +=
            QObject::tr("<p><b>4. Output</b> o = Σ α<sub>j</sub> v<sub>j</sub> = <tt>%1</tt></p>")
                .arg(vectorText(o, 0, 0, o.cols()));
    }
    return html;
}
