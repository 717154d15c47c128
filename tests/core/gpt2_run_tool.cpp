// AttnScope — runs core's GPT-2 on token ids and prints every layer's attention weights and the
// last position's logits as JSON: the C++ side of gpt2_reference_test.py. GPL-3.0-or-later.
//   attn_gpt2_run MODEL_DIR IDS [--no-scale] [--temperature T] [--no-mask] [--layers L,L]
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/error.hpp"
#include "attn/gpt2/model.hpp"

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
        std::cerr << "usage: attn_gpt2_run MODEL_DIR IDS [--no-scale] [--temperature T] "
                     "[--no-mask] [--layers L,L]\n";
        return 2;
    }
    try {
        attn::gpt2::RunControls controls;
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--no-scale")
                controls.scale = false;
            else if (a == "--no-mask")
                controls.mask = attn::MaskSpec{};
            else if (a == "--temperature" && i + 1 < argc)
                controls.temperature = std::stof(argv[++i]);
            else if (a == "--layers" && i + 1 < argc)
                controls.layers = numbers(argv[++i]);
            else
                throw attn::ArgumentError("unknown option " + a);
        }
        const auto model = attn::gpt2::Model::open(argv[1]);
        const std::vector<int> ids = numbers(argv[2]);
        const attn::gpt2::Run run = model->run({ids.begin(), ids.end()}, controls);
        nlohmann::json weights = nlohmann::json::array(), q = nlohmann::json::array();
        for (const auto& layer : run.layers) {
            nlohmann::json heads = nlohmann::json::array(), qs = nlohmann::json::array();
            for (std::size_t h = 0; h < layer.heads.size(); ++h) {
                const auto& w = layer.heads[h].weights;
                heads.push_back(std::vector<float>(w.data(), w.data() + w.size()));
                qs.push_back(
                    std::vector<float>(layer.q[h].data(), layer.q[h].data() + layer.q[h].size()));
            }
            weights.push_back(heads);
            q.push_back(qs);
        }
        std::cout << nlohmann::json{{"weights", weights},
                                    {"q", q},
                                    {"logits",
                                     std::vector<float>(run.logits.data(),
                                                        run.logits.data() + run.logits.size())}}
                  << '\n';
    } catch (const attn::Error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
