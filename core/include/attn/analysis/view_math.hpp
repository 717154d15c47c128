// AttnScope core — what the head, text, neuron and query–key views draw, without pixels.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/tokenizers/words.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// One head, or every head reduced to one matrix.
enum class HeadReduce { One, Mean, Max };
/// How several selected queries (or keys) are combined.
enum class Combine { Sum, Mean };

/// Head h's weights (One) or the element-wise mean / max over the result's heads.
Matrix reduced_weights(const SceneResult& result, HeadReduce reduce, Index head);

/// The weights the queries give each key, summed or averaged over the queries (1 × nk).
Eigen::RowVectorXf combined_row(const Matrix& weights, const std::vector<Index>& queries,
                                Combine combine);
/// The weights each query gives the keys, summed or averaged over the keys (nq × 1).
Eigen::VectorXf combined_column(const Matrix& weights, const std::vector<Index>& keys,
                                Combine combine);

/// The vectors of the neuron view for query i and key j of head h.
struct NeuronVectors {
    Eigen::RowVectorXf q, k, product;  ///< q_i, k_j, q_i ⊙ k_j (d_k each)
    float raw = 0, scaled = 0, weight = 0;
};

/// q_i, k_j and their product for head h (with its key head under GQA), beside the raw and
/// scaled score and the weight. Throws ArgumentError without vectors or out of range.
NeuronVectors neuron_vectors(const SceneResult& result, Index head, Index i, Index j);

/// neuron_vectors of query i for every key, with the query's scores and weights computed once
/// (a long, streamed head would otherwise recompute its whole row for each key: n² work).
std::vector<NeuronVectors> neuron_rows(const SceneResult& result, Index head, Index i);

/// neuron_rows of several queries combined: q is the sum or mean of their vectors, and the raw
/// and scaled scores and the weights are the sum or mean of theirs (the scores are linear in q,
/// so the product's sum is still the dot score). Masked keys of every query have weight 0.
std::vector<NeuronVectors> neuron_rows(const SceneResult& result, Index head,
                                       const std::vector<Index>& queries, Combine combine);

/// Queries and keys of one head projected together onto their top two principal directions.
struct QkProjection {
    Eigen::RowVectorXd mean;    ///< mean of the stacked query and key rows (d_k)
    MatrixD axes;               ///< 2 × d_k orthonormal principal directions
    MatrixD queries, keys;      ///< nq × 2 and nk × 2 coordinates
    Eigen::Vector2d variance;   ///< variance along each axis
    double total_variance = 0;  ///< over every direction (the axes' share is variance / this)
};

/// Joint PCA of head h's queries and keys (each direction's sign fixed so its largest
/// component is positive). Throws ArgumentError without vectors.
QkProjection qk_projection(const SceneResult& result, Index head);

/// Head h's query i moved by (dx, dy) along the projection's two axes.
Eigen::RowVectorXf moved_query(const SceneResult& result, const QkProjection& projection,
                               Index head, Index i, double dx, double dy);

/// The weights query vector q would give head h's keys, with query i's mask, the head's score
/// function, scaling and temperature (equal to the head's row i for q = q_i).
Eigen::RowVectorXf weights_for_query(const SceneResult& result, Index head, Index i,
                                     const Eigen::RowVectorXf& q);

}  // namespace attn
