// AttnScope core — a Marian folder opened whole: source.spm and target.spm, their pieces looked
// up in vocab.json (target_vocab.json when the vocabularies are separate). GPL-3.0-or-later.
#include <exception>
#include <filesystem>
#include <future>

#include "../sentencepiece_tokenizer.hpp"
#include "attn/models/marian/model.hpp"
#include "attn/util/error.hpp"

namespace attn::model::marian {
namespace {

/// Refuses a tokenizer of more ids than the rows it indexes.
void check_tokenizer_ids(const Tokenizer& t, int rows, const std::string& file, const char* what) {
    if (Index(t.vocab_size()) > rows)
        throw FormatError(file + ": " + std::to_string(t.vocab_size()) + " ids, more than the " +
                          what + " of " + std::to_string(rows) + " rows");
}

}  // namespace

Seq2SeqFolder open_folder(const std::string& dir) {
    Seq2SeqFolder f;
    f.dir = dir;
    // The weights open (their pages touched and checked) on another thread while this one
    // parses the vocabularies: neither waits for the other. The model's error, if any, is still
    // the one reported first.
    auto model = std::async(std::launch::async, [&dir] { return open_model(dir); });
    const std::string vocab = dir + "/vocab.json", target_vocab = dir + "/target_vocab.json";
    std::error_code ec;
    const bool separate = std::filesystem::exists(target_vocab, ec);
    std::exception_ptr tokenizer_error;
    try {
        // One reading of a vocab.json the two models share.
        const std::shared_ptr<const PieceVocab> shared = read_piece_vocab(vocab);
        f.source = open_sentencepiece_vocab(dir + "/source.spm", shared);
        f.target = open_sentencepiece_vocab(dir + "/target.spm",
                                            separate ? read_piece_vocab(target_vocab) : shared);
    } catch (...) {
        tokenizer_error = std::current_exception();
    }
    f.model = model.get();
    if (tokenizer_error) std::rethrow_exception(tokenizer_error);
    check_tokenizer_ids(*f.source, f.model->info().source_vocab, vocab, "encoder's embedding");
    check_tokenizer_ids(*f.target, f.model->info().vocab, separate ? target_vocab : vocab,
                        "decoder's output head");
    return f;
}

}  // namespace attn::model::marian
