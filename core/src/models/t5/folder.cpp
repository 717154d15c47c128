// AttnScope core — a T5 folder opened whole: tokenizer.json when it loads (the Unigram model),
// else spiece.model through SentencePiece. GPL-3.0-or-later.
#include <filesystem>

#include "../open_tokenizer.hpp"
#include "../sentencepiece_tokenizer.hpp"
#include "attn/models/t5/model.hpp"
#include "attn/util/error.hpp"

namespace attn::model::t5 {

Seq2SeqFolder open_folder(const std::string& dir) {
    Seq2SeqFolder f;
    f.dir = dir;
    f.model = open_model(dir);
    std::error_code ec;
    const std::string spiece = dir + "/spiece.model";
    if (std::filesystem::exists(dir + "/tokenizer.json", ec)) {
        try {
            f.source = open_tokenizer(dir);
        } catch (const Error&) {
            // A tokenizer.json whose model core cannot read yet: spiece.model says the same.
            if (!std::filesystem::exists(spiece, ec)) throw;
        }
    }
    if (!f.source) f.source = open_sentencepiece(spiece);
    if (Index(f.source->vocab_size()) > f.model->info().vocab)
        throw FormatError(dir + ": the tokenizer has " + std::to_string(f.source->vocab_size()) +
                          " ids, more than vocab_size " + std::to_string(f.model->info().vocab));
    f.target = f.source;
    return f;
}

}  // namespace attn::model::t5
