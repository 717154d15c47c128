// AttnScope core — Marian (the opus-mt translation models): a post-norm encoder–decoder with
// Marian's sinusoidal positions, scaled embeddings and a final logits bias. GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>

#include "attn/models/seq2seq.hpp"

namespace attn::model::marian {

/// Opens DIR's config.json, weights (model.safetensors) and tokenizers (source.spm,
/// target.spm, vocab.json or target_vocab.json); throws FormatError naming the file.
Seq2SeqFolder open_folder(const std::string& dir);

/// Opens DIR's config.json and weights alone.
std::shared_ptr<const Seq2SeqModel> open_model(const std::string& dir);

}  // namespace attn::model::marian
