// AttnScope — runs core's Llama family on token ids and prints every layer's attention weights
// and the last position's logits as JSON: the C++ side of llama_reference_test.py.
// GPL-3.0-or-later.
//   attn_llama_run MODEL_DIR IDS [--no-scale] [--temperature T] [--no-mask] [--no-rotary]
//                  [--layers L,L]
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/error.hpp"
#include "attn/llama/model.hpp"

namespace {

std::vector<int> numbers(const std::string& list) {
    std::vector<int> out;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');)
        out.push_back(std::stoi(item));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: attn_llama_run MODEL_DIR IDS [--no-scale] [--temperature T] "
                     "[--no-mask] [--no-rotary] [--layers L,L]\n";
        return 2;
    }
    try {
        attn::model::RunControls controls;
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--no-scale") {
                controls.scale = false;
            } else if (a == "--no-mask") {
                controls.mask = attn::MaskSpec{};
            } else if (a == "--no-rotary") {
                controls.rotary = false;
            } else if (a == "--temperature" && i + 1 < argc) {
                controls.temperature = std::stof(argv[++i]);
            } else if (a == "--layers" && i + 1 < argc) {
                controls.layers = numbers(argv[++i]);
            } else {
                std::cerr << "unknown option " << a << '\n';
                return 2;
            }
        }
        const auto model = attn::llama::Model::open(argv[1]);
        const std::vector<int> ids = numbers(argv[2]);
        const attn::model::Run run = attn::model::run(*model, {ids.begin(), ids.end()}, controls);
        nlohmann::json weights = nlohmann::json::array();
        for (const auto& layer : run.layers) {
            nlohmann::json heads = nlohmann::json::array();
            for (const auto& head : layer.heads)
                heads.push_back(std::vector<float>(head.weights.data(),
                                                   head.weights.data() + head.weights.size()));
            weights.push_back(heads);
        }
        const auto& info = model->info();
        std::cout << nlohmann::json{{"weights", weights},
                                    {"logits",
                                     std::vector<float>(run.logits.data(),
                                                        run.logits.data() + run.logits.size())},
                                    {"family", info.family},
                                    {"dtype", info.dtype},
                                    {"parameters", info.parameters},
                                    {"heads", info.heads},
                                    {"kv_heads", info.kv_heads},
                                    {"head_dim", info.head_dim}}
                  << '\n';
    } catch (const attn::Error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
