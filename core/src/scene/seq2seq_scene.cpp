// AttnScope core — an encoder–decoder's run as loaded attention. GPL-3.0-or-later.
#include "attn/scene/seq2seq_scene.hpp"

#include <string>
#include <utility>

namespace attn {
namespace {

/// One component of [layer][head] weights, rows Q, columns K.
AttentionComponent component_of(const char* name, const model::LayerWeights& w,
                                std::vector<std::string> q, std::vector<std::string> k,
                                int head_dim) {
    AttentionComponent c;
    c.name = name;
    c.q_tokens = std::move(q);
    c.k_tokens = std::move(k);
    c.layers = Index(w.size());
    c.heads = w.empty() ? 0 : Index(w[0].size());
    c.d_k = float(head_dim);
    c.are_scores = false;
    for (const auto& layer : w)
        for (const Matrix& m : layer)
            c.mats.push_back(m);
    return c;
}

}  // namespace

const char* component_title(model::Component component) {
    return component == model::Component::Encoder   ? "Encoder"
           : component == model::Component::Decoder ? "Decoder"
                                                    : "Cross";
}

Index component_index(const AttentionData& data, model::Component component) {
    for (std::size_t i = 0; i < data.components.size(); ++i)
        if (data.components[i].name == component_title(component)) return Index(i);
    return -1;
}

std::optional<model::Component> shown_component(const AttentionData& data, Index index) {
    if (index < 0 || std::size_t(index) >= data.components.size()) return std::nullopt;
    for (const model::Component c :
         {model::Component::Encoder, model::Component::Decoder, model::Component::Cross})
        if (data.components[std::size_t(index)].name == component_title(c)) return c;
    return std::nullopt;
}

std::vector<std::int32_t> decoder_inputs(const model::Seq2SeqFolder& folder,
                                         std::string_view target) {
    std::vector<std::int32_t> ids = {folder.model->info().decoder_start};
    for (const std::int32_t id : folder.target->encode(target))
        ids.push_back(id);
    return ids;
}

AttentionData seq2seq_attention(const model::Seq2SeqFolder& folder, const model::Seq2SeqRun& run) {
    const std::vector<std::string> source = folder.source->display_tokens(run.source);
    const std::vector<std::string> target = folder.target->display_tokens(run.target);
    const int d_k = folder.model->info().head_dim;
    AttentionData d;
    d.source = folder.dir;
    d.components.push_back(
        component_of(component_title(model::Component::Encoder), run.encoder, source, source, d_k));
    d.components.push_back(
        component_of(component_title(model::Component::Decoder), run.decoder, target, target, d_k));
    d.components.push_back(
        component_of(component_title(model::Component::Cross), run.cross, target, source, d_k));
    d.default_component = component_index(d, model::Component::Cross);
    return d;
}

}  // namespace attn
