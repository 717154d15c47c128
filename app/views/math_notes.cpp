// AttnScope — the math panel's notes on merged words and several selected keys.
// GPL-3.0-or-later.
#include "views/math_notes.hpp"

#include <QObject>
#include <QStringList>

#include "attn/analysis/view_math.hpp"
#include "model/numbering.hpp"
#include "views/token_labels.hpp"

namespace {

/// "2 “ em”, 3 “powers”": the pieces of word w under groups g.
QString piecesOfWord(const attn::WordGroups& g, const std::vector<std::string>& pieces, int w) {
    QStringList names;
    for (std::size_t t = 0; t < g.group_of.size() && t < pieces.size(); ++t)
        if (g.group_of[t] == w)
            names << QStringLiteral("%1 “%2”").arg(t).arg(tokenText(pieces[t]).toHtmlEscaped());
    return names.join(QStringLiteral(", "));
}

}  // namespace

QString selectedKeysNote(const attn::SceneResult& r, const Selection& sel) {
    const int h = sel.head;
    if (sel.keys.size() < 2 || h < 0 || h >= int(r.heads.size())) return {};
    const attn::Matrix& w = r.heads[std::size_t(h)].weights;
    std::vector<attn::Index> queries, keys;
    for (int q : sel.selectedQueries())
        if (q >= 0 && q < w.rows()) queries.push_back(q);
    QStringList names;
    for (int k : sel.keys)
        if (k >= 0 && k < w.cols()) {
            keys.push_back(k);
            names << QStringLiteral("%1 “%2”").arg(shown(k)).arg(
                tokenText(r.k_tokens[std::size_t(k)]).toHtmlEscaped());
        }
    if (queries.empty() || keys.empty()) return {};
    const attn::Combine combine = sel.sum ? attn::Combine::Sum : attn::Combine::Mean;
    // Queries combined first (as the views' rows), then the keys of that row.
    const Eigen::RowVectorXf row = attn::combined_row(w, queries, combine);
    const float value = attn::combined_column(row, keys, combine)(0);
    return QObject::tr(
               "<p><b>%1 keys selected</b> (%2): the views show the <b>%3</b> of their "
               "weights; here %4 gives them %5.</p>")
        .arg(keys.size())
        .arg(names.join(QStringLiteral(", ")))
        .arg(sel.sum ? QObject::tr("sum") : QObject::tr("mean"))
        .arg(queries.size() > 1 ? QObject::tr("the %1 of the %2 selected queries")
                                      .arg(sel.sum ? QObject::tr("sum") : QObject::tr("mean"))
                                      .arg(queries.size())
                                : QObject::tr("query %1").arg(shown(queries.front())))
        .arg(QString::number(double(value), 'f', 4));
}

QString mergedWordsNote(const attn::SceneResult& r, int query) {
    if (!r.merged_words || query < 0 || query >= r.q_words.size()) return {};
    return QObject::tr(
               "<p><b>Words, not pieces</b> (Merge sub-words into words is on): %1 query "
               "pieces became %2 words and %3 key pieces %4 words. Query word %5 holds the "
               "pieces %6; its row is the <b>mean</b> of their rows, and each key word's "
               "weight is the <b>sum</b> of its pieces' columns, so the row still sums to 1. "
               "Scores and vectors belong to pieces, so only weights are shown.</p>")
        .arg(r.q_words.group_of.size())
        .arg(r.q_words.size())
        .arg(r.k_words.group_of.size())
        .arg(r.k_words.size())
        .arg(query)
        .arg(piecesOfWord(r.q_words, r.q_pieces, query));
}
