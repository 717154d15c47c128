// AttnScope core — attention loaded from a file (BertViz, .npz, attention JSON, sessions): the
// type the file formats fill, below the scene that shows it. GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// The rows of a loaded tensor read on demand from its file (a memory-mapped .npy too large to
/// convert to matrices): the reader keeps the mapping alive.
class RowReader {
  public:
    virtual ~RowReader() = default;
    /// Copies row i of the matrix of layer l, head h (one float per key) into out.
    virtual void read_row(Index l, Index h, Index i, float* out) const = 0;
    /// Rows [first, first + count) of layer l, head h were read through: their pages may leave
    /// resident memory (the file stays mapped; they are read again when needed).
    virtual void release(Index l, Index h, Index first, Index count) const = 0;
};

/// One block of attention matrices from a real model (e.g. BertViz "Encoder" or "Cross").
struct AttentionComponent {
    std::string name;                   ///< "Encoder", "Decoder", "Cross", "all", … or ""
    std::vector<std::string> q_tokens;  ///< Nq labels (rows)
    std::vector<std::string> k_tokens;  ///< Nk labels (columns)
    Index layers = 0, heads = 0;
    std::vector<Matrix> mats;  ///< layers·heads matrices, index l·heads + h, Nq × Nk
    bool are_scores = false;   ///< raw q·k (controls apply) vs post-softmax weights
    float d_k = 64.f;          ///< d_k for scaling raw scores
    /// Optional per-head query, key and value vectors (index l·heads + h; Nq × d, Nk × d):
    /// an .npz with q and k. Then mats are their raw scores q·kᵀ and the views show the vectors.
    std::vector<Matrix> q, k, v;
    /// Set instead of mats for a long file: its rows are read from the file on demand, and the
    /// scene of it is streamed (Storage::Streamed) rather than converted to n × n matrices.
    std::shared_ptr<const RowReader> rows;
    /// Matrix of layer l, head h (bounds-checked; throws ArgumentError).
    const Matrix& at(Index l, Index h) const;
};

/// Attention loaded from a file: one or more components.
struct AttentionData {
    std::string source;  ///< file name, for messages and titles
    std::vector<AttentionComponent> components;
    Index default_component = 0;  ///< the one to open on (BertViz "default_filter")
};

}  // namespace attn
