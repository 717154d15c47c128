// AttnScope core — Marian's config.json, read and checked. GPL-3.0-or-later.
#pragma once

#include <string>

#include "attn/blocks/mlp.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::model::marian {

/// What Marian's forward needs from config.json.
struct MarianConfig {
    Seq2SeqInfo info;
    int encoder_ffn = 0, decoder_ffn = 0;
    int max_positions = 0;
    bool scale_embedding = false;   ///< embeddings × √d_model
    bool shared_embeddings = true;  ///< share_encoder_decoder_embeddings
    bool tied = true;               ///< tie_word_embeddings: the head is the decoder's embedding
    blocks::Activation act = blocks::Activation::Silu;
};

/// DIR/config.json as Marian; missing or malformed keys are refused naming the file and key.
MarianConfig read_config(const std::string& dir);

}  // namespace attn::model::marian
