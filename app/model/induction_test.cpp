// AttnScope — the induction test of a model run. GPL-3.0-or-later.
#include "model/induction_test.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "attn/interventions/induction.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/scene/model_scene.hpp"

namespace {

std::optional<std::int32_t> inductionBos(const attn::model::ModelFolder& folder) {
    return folder.tokenizer->token_id("<|endoftext|>");
}

}  // namespace

long long inductionHalf(const attn::SceneSpec& spec) {
    const attn::model::ModelFolder& folder = *spec.model;
    const attn::Index room = folder.model->info().max_positions - (inductionBos(folder) ? 1 : 0);
    return std::min<attn::Index>(50, room / 2);
}

attn::Census inductionCensus(const attn::SceneSpec& spec) {
    const attn::model::ModelFolder& folder = *spec.model;
    const attn::model::ModelInfo& info = folder.model->info();
    const attn::interv::InductionSequence seq =
        attn::interv::induction_sequence(int(attn::model::text_vocab(info)), inductionHalf(spec),
                                         kInductionSeed, inductionBos(folder));
    const attn::model::Run run =
        attn::model::run(*folder.model, seq.ids, attn::model::run_controls(spec));
    const attn::Matrix scores = attn::interv::induction_scores(run, seq);
    std::vector<std::string> tokens;
    for (const std::int32_t id : seq.ids)
        tokens.push_back(std::to_string(id));
    attn::Census c;
    c.layers = info.layers;
    c.heads = info.heads;
    // The keys each query could see, as census_layer counts them for a model's own mask.
    const attn::Index n = attn::Index(seq.ids.size());
    attn::BoolMatrix visible(n, n);
    for (attn::Index i = 0; i < n; ++i)
        for (attn::Index j = 0; j < n; ++j)
            visible(i, j) = !info.causal || j <= i;
    for (int l = 0; l < info.layers; ++l)
        for (int h = 0; h < info.heads; ++h) {
            attn::HeadCensus e = attn::census_head(
                run.layers[std::size_t(l)].heads[std::size_t(h)].weights, tokens, visible);
            e.layer = l;
            e.head = h;
            e.scores[std::size_t(attn::HeadPattern::Induction)] = double(scores(l, h));
            e.label = attn::census_label(e.scores);
            c.entries.push_back(e);
        }
    return c;
}
