// AttnScope core — score functions on whole matrices. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string_view>

#include "attn/util/types.hpp"

namespace attn {

/// The compatibility function s(q, k). "Scaled dot" is Dot with AttentionParams::scale on.
enum class ScoreKind {
    Dot,       ///< q·k
    General,   ///< Luong general: qᵀ W k
    Additive,  ///< Bahdanau additive: v_aᵀ tanh(W_a q + U_a k)
    Rbf,       ///< RBF kernel log-score: −‖q−k‖² / (2σ²)
};

/// Parameters of a score function; only the members of the chosen kind are used.
struct ScoreParams {
    ScoreKind kind = ScoreKind::Dot;
    Matrix W;           ///< General: d_q × d_k bilinear matrix (qᵀ W k).
    Matrix Wa;          ///< Additive: d_q × d_a (row-vector convention: q W_a).
    Matrix Ua;          ///< Additive: d_k × d_a.
    Vector va;          ///< Additive: d_a.
    float sigma = 1.f;  ///< Rbf: bandwidth σ > 0.
};

/// Raw scores S (nq × nk) with S(i,j) = s(Q.row(i), K.row(j)); throws ShapeError/ArgumentError.
Matrix compute_scores(const Matrix& Q, const Matrix& K, const ScoreParams& params);

/// Seeded parameters for a score kind at query/key width d (W, W_a, U_a, v_a with d_a = d).
ScoreParams make_score_params(ScoreKind kind, Index d, std::uint64_t seed, float sigma = 1.f);

/// Whether the 1/√d_k scaling switch applies to this kind (dot and general: yes).
bool score_is_scalable(ScoreKind kind);

/// Stable identifier ("dot", "general", "additive", "rbf").
std::string_view to_string(ScoreKind kind);
/// Parses an identifier of to_string (also accepts "scaled-dot" as Dot); throws ArgumentError.
ScoreKind score_kind_from_string(std::string_view name);

}  // namespace attn
