// AttnScope — the math panel's notes on merged words and several selected keys.
// GPL-3.0-or-later.
#include "views/math_notes.hpp"

#include <QObject>
#include <QStringList>

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
