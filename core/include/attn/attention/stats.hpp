// AttnScope core — statistics of attention rows and heads. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// Statistics of one query row.
struct RowStats {
    double entropy = 0;         ///< −Σ α log α (nats)
    double effective_keys = 0;  ///< exp(entropy)
    double max_weight = 0;      ///< max α
    double mean_distance = 0;   ///< Σ α_j |i − j| (positions)
    double score_mean = 0;      ///< mean of the visible scaled scores
    double score_var = 0;       ///< variance of the visible scaled scores
    bool empty = false;         ///< every key masked
};

/// Statistics of one head: per row and averaged over non-empty rows.
struct HeadStats {
    std::vector<RowStats> rows;
    double entropy = 0, effective_keys = 0, max_weight = 0, mean_distance = 0;
    double score_mean = 0, score_var = 0;
    /// The largest weight of any row (max_weight above is the rows' mean of theirs): the top of
    /// a linear colour scale, known without reading the weights again.
    double largest_weight = 0;
};

/// Statistics of one weights row (with its scaled scores and the row's query position).
RowStats row_stats(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                   const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores, Index query_pos);

/// row_stats of a softmax row given log Σ exp(masked_scores): the entropy is L − Σ α z instead
/// of n logarithms (falls back to row_stats when the scores are missing or L is not finite).
RowStats row_stats_softmax(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                           const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores,
                           Index query_pos, double log_sum_exp);

/// A head's statistics from its rows: the averages are over non-empty rows.
HeadStats summarize_rows(std::vector<RowStats> rows);

/// Statistics of a head, from its weights and masked scores.
HeadStats head_stats(const HeadResult& head);

/// Statistics from a weights matrix alone (e.g. a loaded post-softmax head).
HeadStats weights_stats(const Matrix& weights);

}  // namespace attn
