// AttnScope — a token a user names by its text or its id, and the labels of the interventions'
// maps. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace attn::model {
class Tokenizer;
}

/// The token TEXT names: a decimal id below VOCAB, or a text that TOKENIZER encodes to exactly
/// one token (as typed, then with a leading space, as GPT-2 spells words after the first). On
/// failure nullopt and *ERROR says why.
std::optional<std::int32_t> pickToken(const attn::model::Tokenizer& tokenizer, int vocab,
                                      const QString& text, QString* error);

/// TOKEN as it can be drawn on one line: line breaks and tabs as ⏎ and ⇥, other control
/// characters as ·, a token of spaces only as ␣.
QString visibleToken(QString token);

/// "“text” (id)" for token ID.
QString tokenName(const attn::model::Tokenizer& tokenizer, std::int32_t id);

/// The residual stream's rows: "embedding", "after layer 1", … "after layer LAYERS".
QStringList streamRowLabels(int layers);
