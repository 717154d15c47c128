// AttnScope core — tokenizer.json's WordPiece model (BERT). GPL-3.0-or-later.
#include "models.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

WordPieceModel::WordPieceModel(const Json& j, const Where& w, VocabMap* vocab) {
    vocab_ = vocab ? std::move(*vocab) : read_vocab(need(j, "vocab", w), w.at("vocab"));
    unk_token_ = opt_string(j, "unk_token", "[UNK]", w);
    if (!vocab_.contains(unk_token_))
        w.at("unk_token").fail("\"" + unk_token_ + "\" is not in the vocabulary");
    prefix_ = opt_string(j, "continuing_subword_prefix", "##", w);
    if (const Json* m = opt(j, "max_input_chars_per_word", w))
        max_chars_ =
            std::size_t(as_int(*m, 0, std::int64_t(1) << 40, w.at("max_input_chars_per_word")));
}

void WordPieceModel::tokenize(std::string_view word, std::vector<std::int32_t>& out) const {
    std::vector<std::size_t> starts;  // byte offset of each character
    for (std::size_t i = 0; i < word.size();) {
        starts.push_back(i);
        next_cp(word, i);
    }
    const std::int32_t unk = vocab_.at(unk_token_);
    if (starts.size() > max_chars_) {
        out.push_back(unk);
        return;
    }
    std::vector<std::int32_t> pieces;
    std::size_t start = 0;  // index into starts
    std::string key;
    while (start < starts.size()) {
        std::size_t end = starts.size();
        std::int32_t found = -1;
        while (start < end) {
            const std::size_t b = starts[start];
            const std::size_t e = end == starts.size() ? word.size() : starts[end];
            key.assign(start > 0 ? prefix_ : std::string());
            key.append(word.substr(b, e - b));
            if (const auto it = vocab_.find(key); it != vocab_.end()) {
                found = it->second;
                break;
            }
            --end;
        }
        if (found < 0) {
            out.push_back(unk);
            return;
        }
        pieces.push_back(found);
        start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

std::unique_ptr<Model> make_model(const Json& j, const Where& w, VocabMap* vocab) {
    std::string type = opt_string(j, "type", "", w);
    if (type.empty()) {  // files of older versions leave the model's type out
        if (j.contains("merges"))
            type = "BPE";
        else if (j.contains("max_input_chars_per_word"))
            type = "WordPiece";
        else if (j.contains("vocab") && j["vocab"].is_array())
            type = "Unigram";
        else
            w.fail("has no \"type\"");
    }
    if (type == "BPE") return std::make_unique<BpeModel>(j, w, vocab);
    if (type == "WordPiece") return std::make_unique<WordPieceModel>(j, w, vocab);
    if (type == "Unigram") return std::make_unique<UnigramModel>(j, w);
    unsupported(type, w);
}

}  // namespace attn::tok::detail
