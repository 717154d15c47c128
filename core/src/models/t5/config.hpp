// AttnScope core — T5's config.json, read and checked. GPL-3.0-or-later.
#pragma once

#include <string>

#include "attn/blocks/mlp.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::model::t5 {

/// What T5's forward needs from config.json.
struct T5Config {
    Seq2SeqInfo info;
    int d_ff = 0;
    int buckets = 32, max_distance = 128;  ///< relative_attention_num_buckets, _max_distance
    double eps = 1e-6;                     ///< layer_norm_epsilon
    bool gated = false;  ///< feed_forward_proj "gated-ACT": act(wi_0 x) ⊙ wi_1 x
    blocks::Activation act = blocks::Activation::Relu;
    bool tied = true;  ///< tie_word_embeddings: the head is shared.weight, hidden × d_model^−½
};

/// DIR/config.json as T5; missing or malformed keys are refused naming the file and key.
T5Config read_config(const std::string& dir);

}  // namespace attn::model::t5
