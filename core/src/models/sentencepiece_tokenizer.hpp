// AttnScope core — a SentencePiece model (Debian's libsentencepiece) as a Tokenizer: its own ids
// (T5's spiece.model), or its pieces looked up in a vocab.json (Marian's source.spm and
// target.spm), `</s>` appended. GPL-3.0-or-later.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

/// Opens the SentencePiece model SPM; ids are its own, `</s>` (its eos id) appended. Throws
/// FormatError naming the file.
std::shared_ptr<const Tokenizer> open_sentencepiece(const std::string& spm);

/// Opens the SentencePiece model SPM whose pieces are looked up in VOCAB_JSON (a JSON object
/// piece → id): a piece it lacks reads `<unk>`, `</s>` appended; a leading language code
/// (">>fra<<") is one token, as transformers' MarianTokenizer reads it. Throws FormatError naming
/// the file (a vocab.json without `</s>` or `<unk>` included).
std::shared_ptr<const Tokenizer> open_sentencepiece_vocab(const std::string& spm,
                                                          const std::string& vocab_json);

}  // namespace attn::model
