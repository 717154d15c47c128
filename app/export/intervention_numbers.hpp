// AttnScope — the numbers of the Interventions tab's maps and bars. GPL-3.0-or-later.
#pragma once

#include "export/numbers_export.hpp"

class QWidget;

namespace exporting {

/// The numbers the Interventions tab's page on show draws (VIEW: the tab or one of its views):
/// each map as a matrix (z at column x, row y, with the row and column labels), each bar list
/// as bars, and for the logit lens the top token's id of each cell beside its probability.
/// False when VIEW is none of them.
bool interventionNumbersOfView(QWidget* view, PlotNumbers* numbers);

}  // namespace exporting
