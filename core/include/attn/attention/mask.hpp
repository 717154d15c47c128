// AttnScope core — attention masks. GPL-3.0-or-later.
#pragma once

#include <string_view>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// Which keys each query may see.
enum class MaskKind {
    None,    ///< every key
    Causal,  ///< key j ≤ i (+ nk − nq for rectangular, bottom-right aligned as in a KV cache)
    AntiCausal,     ///< key j ≥ i: the "wrong direction" pitfall, for teaching
    Padding,        ///< keys flagged invalid in key_valid are hidden from every query
    SlidingWindow,  ///< |i − j| ≤ window
    GlobalWindow,   ///< Longformer: window plus global tokens that see and are seen by all
    Custom,         ///< any boolean matrix (custom)
    /// Causal with a window of w keys (Mistral, Gemma 2's local layers): query i sees keys in
    /// (i − w, i] (bottom-right aligned as Causal), built a block at a time like the others.
    CausalWindow,
};

/// A mask description, resolved to a matrix by build_mask.
struct MaskSpec {
    MaskKind kind = MaskKind::None;
    /// SlidingWindow/GlobalWindow: radius w (|i−j| ≤ w); CausalWindow: w keys, the query's
    /// own and the w − 1 before it.
    Index window = 2;
    std::vector<Index> global;    ///< GlobalWindow: indices of global tokens.
    std::vector<bool> key_valid;  ///< Padding: one flag per key (missing entries are valid).
    BoolMatrix custom;            ///< Custom: nq × nk, true = allowed.
    /// Every field equal (custom by shape and values; Eigen's own == needs equal shapes).
    bool operator==(const MaskSpec& other) const;
};

/// The nq × nk matrix of allowed (true) pairs; throws ShapeError/ArgumentError on bad specs.
BoolMatrix build_mask(const MaskSpec& spec, Index nq, Index nk);

/// Rows [first, first + count) of build_mask(spec, nq, nk), without building the rest.
BoolMatrix build_mask_rows(const MaskSpec& spec, Index nq, Index nk, Index first, Index count);

/// The block [first_row, +rows) × [first_col, +cols) of build_mask(spec, nq, nk), without
/// building the rest (a zoomed region of a long sequence).
BoolMatrix build_mask_block(const MaskSpec& spec, Index nq, Index nk, Index first_row, Index rows,
                            Index first_col, Index cols);

/// Stable identifier ("none", "causal", "anti-causal", "padding", "window", "global", "custom",
/// "causal-window").
std::string_view to_string(MaskKind kind);
/// Parses an identifier of to_string; throws ArgumentError.
MaskKind mask_kind_from_string(std::string_view name);

}  // namespace attn
