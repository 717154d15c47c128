// AttnScope — the spacing and number format a CellMap's cells, labels and key share.
// GPL-3.0-or-later.
#pragma once

#include <QColor>
#include <QFontMetrics>
#include <QString>

namespace cellmap {

inline constexpr int kPad = 6;
inline constexpr int kKey = 14;  ///< the colour key's height

/// A key's number: three significant digits.
inline QString shortNumber(double v) {
    return QString::number(v, 'g', 3);
}

/// The ink (black or white) that reads on a cell of colour C.
QColor inkOn(const QColor& c);

/// TEXT (a token) as it is written in ROOM pixels: whole, or in a shorter form that still names
/// it (attn::narrow_forms), elided only as the last resort.
QString fitted(const QFontMetrics& fm, const QString& text, int room);

}  // namespace cellmap
