// AttnScope — opens a model folder through the family registry, runs token ids and prints every
// layer's attention weights and the logits (at the first [MASK] of a bidirectional model) as
// JSON: the C++ side of bert_reference_test.py. GPL-3.0-or-later.
//   attn_bert_run MODEL_DIR IDS [--no-scale] [--temperature T] [--causal] [--layers L,L]
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/error.hpp"
#include "attn/model/families.hpp"
#include "attn/model/model_scene.hpp"

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
        std::cerr << "usage: attn_bert_run MODEL_DIR IDS [--no-scale] [--temperature T] "
                     "[--causal] [--layers L,L]\n";
        return 2;
    }
    try {
        attn::model::RunControls controls;
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--no-scale") {
                controls.scale = false;
            } else if (a == "--causal") {
                attn::MaskSpec m;
                m.kind = attn::MaskKind::Causal;
                controls.mask = m;
            } else if (a == "--temperature" && i + 1 < argc) {
                controls.temperature = std::stof(argv[++i]);
            } else if (a == "--layers" && i + 1 < argc) {
                controls.layers = numbers(argv[++i]);
            } else {
                throw attn::ArgumentError("unknown option " + a);
            }
        }
        const attn::model::ModelFolder folder = attn::model::open_folder(argv[1]);
        const std::vector<int> list = numbers(argv[2]);
        const std::vector<std::int32_t> ids(list.begin(), list.end());
        const auto& info = folder.model->info();
        const attn::model::Run run =
            attn::model::run(*folder.model, ids, controls, nullptr, nullptr, nullptr,
                             attn::model::fill_mask_position(info, *folder.tokenizer, ids));
        nlohmann::json weights = nlohmann::json::array();
        for (const auto& layer : run.layers) {
            nlohmann::json heads = nlohmann::json::array();
            for (const auto& head : layer.heads)
                heads.push_back(std::vector<float>(head.weights.data(),
                                                   head.weights.data() + head.weights.size()));
            weights.push_back(heads);
        }
        std::cout << nlohmann::json{{"family", info.family},
                                    {"causal", info.causal},
                                    {"pre_norm", info.pre_norm},
                                    {"dtype", info.dtype},
                                    {"parameters", info.parameters},
                                    {"weights", weights},
                                    {"logits_position", run.logits_position},
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
