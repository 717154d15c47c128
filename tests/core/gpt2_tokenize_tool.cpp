// AttnScope — prints the GPT-2 token ids of each string of a JSON array, one JSON array of ids
// per line: the C++ side of gpt2_tokenizer_node_test.sh. GPL-3.0-or-later.
//   attn_gpt2_tokenize BPE_DIR CASES.json
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "attn/models/gpt2/bpe_tokenizer.hpp"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: attn_gpt2_tokenize BPE_DIR CASES.json\n";
        return 2;
    }
    const std::string dir = argv[1];
    const auto tok = attn::gpt2::BpeTokenizer::load(dir + "/encoder.json", dir + "/vocab.bpe");
    std::ifstream in(argv[2]);
    for (const auto& text : nlohmann::json::parse(in))
        std::cout << nlohmann::json(tok.encode(text.get<std::string>())).dump() << '\n';
    return 0;
}
