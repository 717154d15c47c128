// AttnScope core — T5 and Flan-T5: a pre-norm encoder–decoder with T5's RMS norm, relative
// position buckets instead of positions, and unscaled scores. GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>

#include "attn/models/seq2seq.hpp"

namespace attn::model::t5 {

/// Opens DIR's config.json, weights (model.safetensors) and tokenizer (tokenizer.json when it
/// loads, else spiece.model); throws FormatError naming the file.
Seq2SeqFolder open_folder(const std::string& dir);

/// Opens DIR's config.json and weights alone.
std::shared_ptr<const Seq2SeqModel> open_model(const std::string& dir);

/// T5's relative position bucket of a key RELATIVE positions after its query (negative:
/// before), as transformers' T5Attention._relative_position_bucket.
int relative_bucket(int relative, bool bidirectional, int buckets, int max_distance);

}  // namespace attn::model::t5
