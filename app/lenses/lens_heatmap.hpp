// AttnScope — a heatmap on a lens plot (matrix → QCPColorMap with a colour scale).
// GPL-3.0-or-later.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "attn/util/types.hpp"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;

/// A colour map filling plot's axis rect plus a colour scale on its right labelled `label`.
struct LensHeatmap {
    QCPColorMap* map = nullptr;
    QCPColorScale* scale = nullptr;
    /// Creates it on plot (rows top to bottom, like a matrix); diverging uses a blue–red map.
    static LensHeatmap create(QCustomPlot* plot, const QString& label, bool diverging);
    /// Shows M (rows × cols): cell (i, j) at x = j, y = i, y axis reversed; range [lo, hi].
    void setMatrix(const attn::MatrixD& M, double lo, double hi);
    /// Labels columns and rows with tokens (elided); empty lists keep integer ticks.
    void setTokens(const std::vector<std::string>& cols, const std::vector<std::string>& rows);
};
