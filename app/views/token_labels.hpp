// AttnScope — token labels on plot axes: elided, thinned out to fit. GPL-3.0-or-later.
#pragma once

#include <QFont>
#include <QString>
#include <string>
#include <vector>

#include "views/qcp.hpp"

/// The token as shown on an axis: at most maxChars characters, elided with "…".
QString elideToken(const std::string& token, int maxChars = 10);

/// Fills ticker with labels of tokens at positions 0…n−1, keeping every k-th label so that
/// labels are at least minSpacingPx apart on an axis of axisPixels (the first label is always
/// shown). Labels get their index when thinned out ("1992 ·12") so positions stay readable.
void setTokenTicks(QCPAxisTickerText& ticker, const std::vector<std::string>& tokens,
                   double axisPixels, double minSpacingPx);

/// The same for the tokens [first, first + count) only, at their positions (a zoomed axis).
void setTokenTicks(QCPAxisTickerText& ticker, const std::vector<std::string>& tokens,
                   long long first, long long count, double axisPixels, double minSpacingPx);

/// Keeps the full text of AXIS's positions 0…n−1 (TOKENS, unelided, without the index a
/// thinned label gets) beside its tick labels: what an export writes as a position's label.
void setPlainLabels(QCPAxis* axis, const std::vector<std::string>& tokens);

/// The label an export writes for position V of AXIS: the full text setPlainLabels kept, else
/// the axis's own tick text there (categories), else "".
QString plainLabel(const QCPAxis* axis, double v);

/// At most count of tokens, those with the longest labels (elideToken), in their order: what a
/// layout measures so that 32k tokens are not each laid out to find the widest label.
std::vector<std::string> widestTokens(const std::vector<std::string>& tokens, std::size_t count);

/// Converts a UTF-8 token to QString for display: a token of only whitespace (XLNet's " ")
/// becomes visible symbols (␣ space, ⇥ tab, ⏎ newline; "" is ␣) instead of a blank label.
QString tokenText(const std::string& token);

/// The title of a loaded component as BertViz shows it ("Sentence A → B", "All tokens"), or
/// "N (unnamed)" for a component without a name.
QString componentTitle(const std::string& name, int index = 0);
