// AttnScope core — value zeroing (Mohebbi et al. 2023): how much each token's value vector
// changes each layer's output. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// L matrices n × n: row i, column j is 1 − cos(y_i, ỹ_i), y layer l's output in RUN and ỹ the
/// same layer run again from the same input with token j's value vector zeroed in every head
/// (the run's controls and interventions kept); each row normalised to sum 1 (an all-zero row
/// stays zero). L · n runs of one layer; PROGRESS may cancel.
std::vector<MatrixD> value_zeroing(const model::Model& model, const model::Run& run,
                                   Progress* progress = nullptr);

}  // namespace attn::attrib
