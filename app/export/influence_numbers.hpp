// AttnScope — the numbers of the Influence tab's panels. GPL-3.0-or-later.
#pragma once

#include "export/numbers_export.hpp"

class QWidget;

namespace exporting {

/// The numbers the Influence tab (VIEW: the tab or one of its panels) draws. The strips panel:
/// each method's score per token (x the position from 0, x_label the token), the top 5 of every
/// position (z the probability at column x = position, row y = rank from 0, y_label the token),
/// the target; the heads panel: Σ A ⊙ ∂logit/∂A per head (z at x = head, y = layer) and the
/// selected head's query × key map; the faithfulness panel: each curve (x the tokens erased, y
/// the logit) and the random orders' mean and ± one standard deviation; the agreement panel:
/// τ-b between methods (labelled). False when VIEW is none of them.
bool influenceNumbersOfView(QWidget* view, PlotNumbers* numbers);

}  // namespace exporting
