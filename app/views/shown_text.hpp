// AttnScope — how numbers and tokens read in lists and labels: one rule for probabilities, and
// tokens isolated from the text around them. GPL-3.0-or-later.
#pragma once

#include <QString>

/// PROBABILITY (0…1) as a percentage, by one rule everywhere: "12.3 %" from 1 % up, then one
/// significant digit ("0.5 %", "0.04 %", "0.009 %"), "<0.001 %" below that, "0 %" for zero.
QString percentText(double probability);

/// TEXT wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE (U+2068 … U+2069): a
/// right-to-left token reads right to left inside, and leaves the order of the line around it
/// (quotes, percentages, separators) alone.
QString isolatedText(const QString& text);

/// TEXT with a WORD JOINER (U+2060) at every place a line may break inside it: a wrapped label
/// keeps a token whole ("</s>" would otherwise break after its slash).
QString unbrokenText(const QString& text);

/// TEXT as a token is quoted in lists and labels: “text”, isolated (isolatedText) and unbroken
/// (unbrokenText).
QString quotedToken(const QString& text);
