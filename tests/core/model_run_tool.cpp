// AttnScope — opens a model folder of any family through the registry, runs token ids and prints
// every layer's attention weights, the logits (at the first [MASK] of a bidirectional model, else
// the last position) and what the folder's ModelInfo says, as JSON: the C++ side of
// gpt2_reference_test.py, llama_reference_test.py and bert_reference_test.py.
// GPL-3.0-or-later.
//   attn_model_run MODEL_DIR IDS [--family TYPE] [--no-scale] [--temperature T] [--no-mask]
//                  [--causal] [--no-rotary] [--no-softcap] [--layers L,L] [--prefix K]
// --family opens the folder as the registry's entry for TYPE whatever config.json names, so
// that family's own check of model_type is what refuses another family's folder.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"

namespace {

std::vector<int> numbers(const std::string& list) {
    std::vector<int> out;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');)
        out.push_back(std::stoi(item));
    return out;
}

attn::model::ModelFolder open(const std::string& dir, const std::string& family) {
    if (family.empty()) return attn::model::open_folder(dir);
    for (const attn::model::Family& f : attn::model::families())
        if (f.model_type == family) return f.open(dir);
    throw attn::ArgumentError("--family: no family " + family);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: attn_model_run MODEL_DIR IDS [--family TYPE] [--no-scale] "
                     "[--temperature T] [--no-mask] [--causal] [--no-rotary] [--no-softcap] "
                     "[--layers L,L]\n";
        return 2;
    }
    try {
        attn::model::RunControls controls;
        std::string family;
        std::size_t prefix_length = 0;  // --prefix K: run the first K ids first, then reuse it
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--no-scale") {
                controls.scale = false;
            } else if (a == "--no-mask") {
                controls.mask = attn::MaskSpec{};
            } else if (a == "--causal") {
                attn::MaskSpec m;
                m.kind = attn::MaskKind::Causal;
                controls.mask = m;
            } else if (a == "--no-rotary") {
                controls.rotary = false;
            } else if (a == "--no-softcap") {
                controls.softcap = false;
            } else if (a == "--temperature" && i + 1 < argc) {
                controls.temperature = std::stof(argv[++i]);
            } else if (a == "--layers" && i + 1 < argc) {
                controls.layers = numbers(argv[++i]);
            } else if (a == "--prefix" && i + 1 < argc) {
                prefix_length = std::size_t(std::stoul(argv[++i]));
            } else if (a == "--family" && i + 1 < argc) {
                family = argv[++i];
            } else {
                throw attn::ArgumentError("unknown option " + a);
            }
        }
        const attn::model::ModelFolder folder = open(argv[1], family);
        const std::vector<int> list = numbers(argv[2]);
        const std::vector<std::int32_t> ids(list.begin(), list.end());
        const auto& info = folder.model->info();
        std::optional<attn::model::Run> prefix;
        if (prefix_length > 0) {
            const std::vector<std::int32_t> head(ids.begin(),
                                                 ids.begin() + std::ptrdiff_t(prefix_length));
            prefix = attn::model::run(*folder.model, head, controls);
        }
        const attn::model::Run run = attn::model::run(
            *folder.model, ids, controls, nullptr, nullptr, prefix ? &*prefix : nullptr,
            attn::model::fill_mask_position(info, *folder.tokenizer, ids));
        nlohmann::json weights = nlohmann::json::array();
        for (const auto& layer : run.layers) {
            nlohmann::json heads = nlohmann::json::array();
            for (const auto& head : layer.heads)
                heads.push_back(std::vector<float>(head.weights.data(),
                                                   head.weights.data() + head.weights.size()));
            weights.push_back(heads);
        }
        // A mixture of experts' routing per layer (Mixtral): [L][n][k] each; empty otherwise.
        nlohmann::json experts = nlohmann::json::array(), routing = nlohmann::json::array();
        for (const auto& layer : run.layers) {
            if (layer.router_experts.size() == 0) continue;
            nlohmann::json e = nlohmann::json::array(), w = nlohmann::json::array();
            for (attn::Index i = 0; i < layer.router_experts.rows(); ++i) {
                std::vector<int> row(std::size_t(layer.router_experts.cols()));
                std::vector<float> wrow(row.size());
                for (std::size_t j = 0; j < row.size(); ++j) {
                    row[j] = layer.router_experts(i, attn::Index(j));
                    wrow[j] = layer.router_weights(i, attn::Index(j));
                }
                e.push_back(row);
                w.push_back(wrow);
            }
            experts.push_back(e);
            routing.push_back(w);
        }
        std::cout << nlohmann::json{{"family", info.family},
                                    {"causal", info.causal},
                                    {"pre_norm", info.pre_norm},
                                    {"softcap", info.softcap},
                                    {"dtype", info.dtype},
                                    {"parameters", info.parameters},
                                    {"heads", info.heads},
                                    {"kv_heads", info.kv_heads},
                                    {"head_dim", info.head_dim},
                                    {"weights", weights},
                                    {"router_experts", experts},
                                    {"router_weights", routing},
                                    {"logits_position", run.logits_position},
                                    {"reused", run.reused},
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
