// AttnScope core — a folder's tokenizer.json, for the families that ship one.
// GPL-3.0-or-later.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "attn/models/model.hpp"
#include "attn/tokenizers/tokenizer.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

/// DIR's tokenizer.json; throws FormatError naming the file.
std::shared_ptr<const Tokenizer> open_tokenizer(const std::string& dir);

/// DIR opened as family M (M::open(dir), M::set_text_vocab) with its tokenizer.json, which
/// loads while the weights are checked; a tokenizer of more ids than the model's vocab_size is
/// refused naming the file.
template <class M>
ModelFolder open_with_tokenizer(const std::string& dir) {
    ModelFolder f;
    f.dir = dir;
    // The tokenizer (a 9–33 MB JSON file to parse) loads while the weights are checked.
    auto tokenizer = std::async(std::launch::async, [&dir] { return open_tokenizer(dir); });
    const auto model = M::open(dir);
    f.model = model;
    f.tokenizer = tokenizer.get();
    if (Index(f.tokenizer->vocab_size()) > model->info().vocab)
        throw FormatError(dir + "/tokenizer.json: " + std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than the model's vocab_size " +
                          std::to_string(model->info().vocab));
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::model
