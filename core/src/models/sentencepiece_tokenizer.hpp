// AttnScope core — a SentencePiece model (Debian's libsentencepiece) as a Tokenizer: its own ids
// (T5's spiece.model), or its pieces looked up in a vocab.json (Marian's source.spm and
// target.spm), `</s>` appended. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

/// A vocab.json read: piece → id, and each id's piece (the greater of two pieces of one id).
struct PieceVocab {
    std::unordered_map<std::string, std::int32_t> ids;
    std::vector<std::string> pieces;
    std::int32_t eos = 0, unk = 0;  ///< the ids of `</s>` and `<unk>`
};

/// Reads VOCAB_JSON (a JSON object piece → id). Throws FormatError naming the file (one without
/// `</s>` or `<unk>` included).
std::shared_ptr<const PieceVocab> read_piece_vocab(const std::string& vocab_json);

/// Opens the SentencePiece model SPM; ids are its own, `</s>` (its eos id) appended. Throws
/// FormatError naming the file.
std::shared_ptr<const Tokenizer> open_sentencepiece(const std::string& spm);

/// Opens the SentencePiece model SPM whose pieces are looked up in VOCAB_JSON (a JSON object
/// piece → id): a piece it lacks reads `<unk>`, `</s>` appended; a leading language code
/// (">>fra<<") is one token, as transformers' MarianTokenizer reads it. Throws FormatError naming
/// the file (a vocab.json without `</s>` or `<unk>` included).
std::shared_ptr<const Tokenizer> open_sentencepiece_vocab(const std::string& spm,
                                                          const std::string& vocab_json);

/// The same with VOCAB read already (a source and a target model sharing one vocab.json).
std::shared_ptr<const Tokenizer> open_sentencepiece_vocab(const std::string& spm,
                                                          std::shared_ptr<const PieceVocab> vocab);

}  // namespace attn::model
