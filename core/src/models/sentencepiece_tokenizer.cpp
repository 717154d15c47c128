// AttnScope core — SentencePiece models as tokenizers. GPL-3.0-or-later.
#include "sentencepiece_tokenizer.hpp"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "../files/io_util.hpp"
#include "../tokenizers/vocab_sax.hpp"
#include "attn/util/error.hpp"
#include "attn/util/utf8_check.hpp"

namespace attn::model {
namespace {

/// SentencePiece's word-boundary mark, shown as a space.
constexpr std::string_view kSpmSpace = "\xE2\x96\x81";

std::string spaced(std::string_view piece) {
    std::string out;
    out.reserve(piece.size());
    for (std::size_t i = 0; i < piece.size();) {
        if (piece.substr(i, kSpmSpace.size()) == kSpmSpace) {
            out += ' ';
            i += kSpmSpace.size();
        } else {
            out += piece[i++];
        }
    }
    return out;
}

/// The DOM reading of a vocab.json, for the messages of one the fast reading refused.
void read_vocab_tree(const std::vector<std::byte>& bytes, const std::string& vocab_json,
                     tok::detail::VocabMap& ids) {
    const nlohmann::json j = nlohmann::json::parse(
        reinterpret_cast<const char*>(bytes.data()),
        reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw FormatError(vocab_json + ": not a JSON object of pieces and ids");
    for (const auto& [piece, id] : j.items()) {
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= (1 << 24))
            throw FormatError(vocab_json + ": the id of \"" + piece +
                              "\" is not an integer from 0 to 2^24");
        ids[piece] = std::int32_t(id.get<long long>());
    }
}

class SpmTokenizer final : public Tokenizer {
  public:
    SpmTokenizer(const std::string& spm, std::shared_ptr<const PieceVocab> vocab)
        : vocab_(std::move(vocab)) {
        // Read with the size checked and a FIFO refused, then parsed from memory.
        const std::vector<std::byte> model = io::detail::read_whole_file(spm, spm);
        const auto status = spm_.LoadFromSerializedProto(
            std::string_view(reinterpret_cast<const char*>(model.data()), model.size()));
        if (!status.ok())
            throw FormatError(spm + ": not a SentencePiece model (" + std::to_string(model.size()) +
                              " bytes that do not parse as one)");
        mapped_ = vocab_ != nullptr;
        if (mapped_) {
            eos_ = vocab_->eos;
            unk_ = vocab_->unk;
            return;
        }
        eos_ = spm_.eos_id();
        if (eos_ < 0) throw FormatError(spm + ": the SentencePiece model has no </s>");
    }

    std::vector<std::int32_t> encode(std::string_view text) const override {
        check_utf8(text);
        std::vector<std::int32_t> out;
        if (mapped_) {
            // Multilingual opus-mt models read a target-language code ">>fra<<" first: as
            // transformers' MarianTokenizer, the span from the first ">>" to the last "<<" is
            // cut out of the text, and is the first token when the text starts with it.
            std::string rest(text);
            std::vector<std::string> pieces;
            const std::size_t open = rest.find(">>"), close = rest.rfind("<<");
            if (open != std::string::npos && close != std::string::npos && close > open + 2) {
                if (open == 0) pieces.push_back(rest.substr(0, close + 2));
                rest.erase(open, close + 2 - open);
            }
            std::vector<std::string> spm_pieces;
            spm_.Encode(rest, &spm_pieces).IgnoreError();
            pieces.insert(pieces.end(), spm_pieces.begin(), spm_pieces.end());
            for (const std::string& p : pieces) {
                const auto it = vocab_->ids.find(p);
                out.push_back(it == vocab_->ids.end() ? unk_ : it->second);
            }
        } else {
            std::vector<int> ids;
            spm_.Encode(text, &ids).IgnoreError();
            out.assign(ids.begin(), ids.end());
        }
        out.push_back(eos_);
        return out;
    }
    std::vector<std::int32_t> encode(std::string_view text, std::size_t limit,
                                     bool* more) const override {
        std::vector<std::int32_t> ids = encode(text);
        if (more) *more = ids.size() > limit;
        if (ids.size() > limit) ids.resize(limit);
        return ids;
    }
    std::string decode(const std::vector<std::int32_t>& ids) const override {
        std::string text;
        std::vector<std::string> pieces;
        for (const std::int32_t id : ids) {
            if (id < 0) throw ArgumentError("a negative token id");
            if (std::size_t(id) >= vocab_size()) {
                pieces.push_back(unknown_token_text(id));
                continue;
            }
            pieces.push_back(mapped_ ? vocab_->pieces[std::size_t(id)] : spm_.IdToPiece(id));
        }
        spm_.Decode(pieces, &text).IgnoreError();
        return text;
    }
    std::string token_text(std::int32_t id) const override {
        if (id < 0 || std::size_t(id) >= vocab_size()) return unknown_token_text(id);
        return spaced(mapped_ ? vocab_->pieces[std::size_t(id)] : spm_.IdToPiece(id));
    }
    bool is_special(std::int32_t id) const override {
        if (id < 0 || std::size_t(id) >= vocab_size()) return false;
        if (!mapped_) return spm_.IsControl(id) || spm_.IsUnknown(id);
        const std::string& p = vocab_->pieces[std::size_t(id)];
        return p == "</s>" || p == "<unk>" || p == "<pad>" || p == "<s>";
    }
    std::optional<std::int32_t> token_id(std::string_view token) const override {
        if (mapped_) {
            const auto it = vocab_->ids.find(std::string(token));
            if (it == vocab_->ids.end()) return std::nullopt;
            return it->second;
        }
        const int id = spm_.PieceToId(token);
        if (id == spm_.unk_id() && spm_.IdToPiece(id) != token) return std::nullopt;
        return std::int32_t(id);
    }
    std::size_t vocab_size() const override {
        return mapped_ ? vocab_->pieces.size() : std::size_t(spm_.GetPieceSize());
    }

  private:
    sentencepiece::SentencePieceProcessor spm_;
    std::shared_ptr<const PieceVocab> vocab_;  ///< null: the model's own ids
    bool mapped_ = false;
    std::int32_t eos_ = 0, unk_ = 0;
};

}  // namespace

std::shared_ptr<const PieceVocab> read_piece_vocab(const std::string& vocab_json) {
    const std::vector<std::byte> bytes = io::detail::read_whole_file(vocab_json, vocab_json);
    auto v = std::make_shared<PieceVocab>();
    // Straight into the hash map (a 58,101-piece vocab.json as a tree of JSON values took most
    // of a Marian folder's opening); the tree only for the message of a file that is not one.
    if (!tok::detail::parse_vocab_object(
            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), v->ids)) {
        v->ids.clear();
        read_vocab_tree(bytes, vocab_json, v->ids);
    }
    std::vector<char> named;
    for (const auto& [piece, id] : v->ids) {
        const auto i = std::size_t(id);
        if (i >= v->pieces.size()) {
            v->pieces.resize(i + 1);
            named.resize(i + 1, 0);
        }
        // Two pieces of one id: the greater one names it, whatever the map's order.
        if (!named[i] || piece > v->pieces[i]) v->pieces[i] = piece;
        named[i] = 1;
    }
    for (const char* needed : {"</s>", "<unk>"})
        if (!v->ids.count(needed))
            throw FormatError(vocab_json + ": no \"" + std::string(needed) + "\" entry");
    v->eos = v->ids.at("</s>");
    v->unk = v->ids.at("<unk>");
    return v;
}

std::shared_ptr<const Tokenizer> open_sentencepiece(const std::string& spm) {
    return std::make_shared<SpmTokenizer>(spm, nullptr);
}

std::shared_ptr<const Tokenizer> open_sentencepiece_vocab(const std::string& spm,
                                                          const std::string& vocab_json) {
    return open_sentencepiece_vocab(spm, read_piece_vocab(vocab_json));
}

std::shared_ptr<const Tokenizer> open_sentencepiece_vocab(const std::string& spm,
                                                          std::shared_ptr<const PieceVocab> vocab) {
    return std::make_shared<SpmTokenizer>(spm, std::move(vocab));
}

}  // namespace attn::model
