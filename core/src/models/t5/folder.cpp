// AttnScope core — a T5 folder opened whole: tokenizer.json when it loads (the Unigram model),
// else spiece.model through SentencePiece. GPL-3.0-or-later.
#include <exception>
#include <filesystem>
#include <future>

#include "../open_tokenizer.hpp"
#include "../sentencepiece_tokenizer.hpp"
#include "attn/models/t5/model.hpp"
#include "attn/util/error.hpp"

namespace attn::model::t5 {

Seq2SeqFolder open_folder(const std::string& dir) {
    Seq2SeqFolder f;
    f.dir = dir;
    // The weights open on another thread while this one reads the tokenizer (as Marian's
    // open_folder); the model's error, if any, is still the one reported first.
    auto model = std::async(std::launch::async, [&dir] { return open_model(dir); });
    std::exception_ptr tokenizer_error;
    try {
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
    } catch (...) {
        tokenizer_error = std::current_exception();
    }
    f.model = model.get();
    if (tokenizer_error) std::rethrow_exception(tokenizer_error);
    if (Index(f.source->vocab_size()) > f.model->info().vocab)
        throw FormatError(dir + ": the tokenizer has " + std::to_string(f.source->vocab_size()) +
                          " ids, more than vocab_size " + std::to_string(f.model->info().vocab));
    f.target = f.source;
    return f;
}

}  // namespace attn::model::t5
