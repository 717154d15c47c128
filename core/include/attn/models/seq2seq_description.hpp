// AttnScope core — an encoder–decoder as the blocks it runs, with their weights: what Marian and
// T5 state once (Seq2SeqModel::describe) so that attribution's reverse pass through both stacks
// (attribution/seq2seq_reverse) is written once for every encoder–decoder family.
// GPL-3.0-or-later.
#pragma once

#include <functional>
#include <vector>

#include "attn/models/layer_description.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::model {

/// One layer of either stack. BLOCK holds the self-attention (norm1, attention), the
/// feed-forward block (norm2, mlp) and how they are wired (pre- or post-norm); a decoder layer
/// has a cross-attention block between them, wired the same way, its keys and values read from
/// the encoder's output.
struct Seq2SeqLayerDescription {
    LayerDescription block;
    NormOp cross_norm;
    AttentionOp cross;
};

/// Both stacks and the output head.
struct Seq2SeqDescription {
    std::vector<Seq2SeqLayerDescription> encoder, decoder;
    NormOp encoder_final;                      ///< after the encoder's last layer (T5), else None
    NormOp decoder_final;                      ///< before the head (T5), else None
    const FloatTensor* unembedding = nullptr;  ///< [vocab, d]
    const FloatTensor* bias = nullptr;         ///< [1, vocab] (final_logits_bias); null: none
    float head_scale = 1.f;  ///< the hidden row × this before the head (T5's tied d^−½)
    /// Each head's additive score bias of PART's self-attention for ROWS queries (from position
    /// 0) over KEYS keys (T5's relative positions); null or empty: none.
    std::function<std::vector<Matrix>(Component part, Index rows, Index keys)> score_bias;
};

}  // namespace attn::model
