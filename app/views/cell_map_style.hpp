// AttnScope — the spacing and number format a CellMap's cells, labels and key share.
// GPL-3.0-or-later.
#pragma once

#include <QString>

namespace cellmap {

inline constexpr int kPad = 6;
inline constexpr int kKey = 14;  ///< the colour key's height

/// A key's number: three significant digits.
inline QString shortNumber(double v) {
    return QString::number(v, 'g', 3);
}

}  // namespace cellmap
