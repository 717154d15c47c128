// AttnScope — a token a user names by its text or its id. GPL-3.0-or-later.
#include "views/token_pick.hpp"

#include <QCoreApplication>
#include <exception>

#include "attn/tokenizers/tokenizer.hpp"
#include "views/shown_text.hpp"

namespace {
QString pickTr(const char* text) {
    return QCoreApplication::translate("TokenPick", text);
}
}  // namespace

std::optional<std::int32_t> pickToken(const attn::model::Tokenizer& tokenizer, int vocab,
                                      const QString& text, QString* error) {
    if (text.isEmpty()) {
        *error = pickTr("Name a token: its text or its id");
        return std::nullopt;
    }
    bool number = false;
    const qlonglong id = text.trimmed().toLongLong(&number);
    if (number) {
        if (id >= 0 && id < vocab) return std::int32_t(id);
        *error = pickTr("Token id %1 is outside the vocabulary (0 to %2)").arg(id).arg(vocab - 1);
        return std::nullopt;
    }
    std::size_t shortest = 0;
    for (const QString& t : {text, QStringLiteral(" ") + text}) {
        std::vector<std::int32_t> ids;
        try {
            ids = tokenizer.encode(t.toStdString());
        } catch (const std::exception&) {
            continue;
        }
        std::erase_if(ids, [&](std::int32_t i) { return tokenizer.is_special(i); });
        if (ids.size() == 1) return ids.front();
        if (shortest == 0 || ids.size() < shortest) shortest = ids.size();
    }
    *error =
        pickTr("“%1” is %2 tokens, not one: type a single token or its id").arg(text).arg(shortest);
    return std::nullopt;
}

QString visibleToken(QString token) {
    if (!token.isEmpty() && token.trimmed().isEmpty() && !token.contains(QLatin1Char('\n')))
        return QString(token.size(), QChar(0x2423));
    for (QChar& c : token) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r'))
            c = QChar(0x23CE);
        else if (c == QLatin1Char('\t'))
            c = QChar(0x21E5);
        else if (c.category() == QChar::Other_Control)
            c = QChar(0x00B7);
    }
    return token;
}

QString tokenName(const attn::model::Tokenizer& tokenizer, std::int32_t id) {
    return QStringLiteral("%1 (%2)")
        .arg(quotedToken(visibleToken(QString::fromStdString(tokenizer.token_text(id)))))
        .arg(id);
}

QStringList streamRowLabels(int layers) {
    QStringList rows{pickTr("embedding")};
    for (int l = 1; l <= layers; ++l)
        rows << pickTr("after layer %1").arg(l);
    return rows;
}
