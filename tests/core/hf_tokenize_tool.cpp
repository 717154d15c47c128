// AttnScope — prints the token ids of a tokenizer.json tokenizer: the C++ side of
// hf_tokenizer_reference_test.sh. GPL-3.0-or-later.
//   attn_hf_tokenize TOKENIZER_JSON < TEXT          one JSON array of the text's ids
//   attn_hf_tokenize TOKENIZER_JSON CASES.json      per string of the array: a JSON array of
//                                                   its ids, then the JSON string they decode to
// A TOKENIZER_JSON ending in .gguf is a GGUF file: the tokenizer it embeds (gguf_tokenizer).
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attn/models/gguf_tokenizer.hpp"
#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::cerr << "usage: attn_hf_tokenize TOKENIZER_JSON [CASES.json] (text on stdin)\n";
        return 2;
    }
    try {
        const std::string path = argv[1];
        const bool gguf = path.size() > 5 && path.substr(path.size() - 5) == ".gguf";
        const std::shared_ptr<const attn::model::Tokenizer> held =
            gguf ? attn::model::gguf_tokenizer(attn::model::GgufFile(path))
                 : std::make_shared<const attn::tok::HfTokenizer>(
                       attn::tok::HfTokenizer::load(path));
        const attn::model::Tokenizer& tok = *held;
        if (argc == 2) {
            const std::string text{std::istreambuf_iterator<char>(std::cin), {}};
            std::cout << nlohmann::json(tok.encode(text)).dump() << '\n';
            return 0;
        }
        std::ifstream in(argv[2]);
        for (const auto& text : nlohmann::json::parse(in)) {
            const auto ids = tok.encode(text.get<std::string>());
            std::cout << nlohmann::json(ids).dump() << '\n'
                      << nlohmann::json(tok.decode(ids)).dump() << '\n';
        }
    } catch (const attn::Error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
