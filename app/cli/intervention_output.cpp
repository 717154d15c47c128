// AttnScope — what the command line's interventions add to the output. GPL-3.0-or-later.
#include "cli/intervention_output.hpp"

#include <algorithm>
#include <string>

#include "attn/interventions/attribution.hpp"
#include "attn/interventions/induction.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/scene/model_scene.hpp"
#include "cli/cli_request.hpp"

namespace cli {
namespace {

std::vector<float> values(const attn::Matrix& m) {
    return std::vector<float>(m.data(), m.data() + m.size());
}

}  // namespace

void addInterventionArrays(const Request& request, const attn::model::Model& model,
                           const attn::model::Run& run, attn::io::ResultStream& out) {
    if (request.logitLens) {
        const attn::Matrix lens = attn::interv::lens_logits(model, run);
        out.add_array("lens_logits", {std::uint64_t(lens.rows()), std::uint64_t(lens.cols())},
                      values(lens));
    }
    if (request.attribute) {
        const attn::interv::Attribution a =
            attn::interv::attribute(model, run.ids, *request.attribute, run.controls);
        out.add_array("head_attribution",
                      {std::uint64_t(a.heads.rows()), std::uint64_t(a.heads.cols())},
                      values(a.heads));
        out.add_array("mlp_attribution", {std::uint64_t(a.mlp.size())},
                      std::vector<float>(a.mlp.data(), a.mlp.data() + a.mlp.size()));
        out.add_array("embed_attribution", {1}, {float(a.embed)});
        // The constant terms: every attention block's output bias and the final norm's bias.
        out.add_array("bias_attribution", {1},
                      {float(double(a.attn_bias.cast<double>().sum()) + a.norm_bias)});
    }
}

attn::Census inductionCensus(const attn::SceneSpec& spec) {
    const attn::model::ModelFolder& folder = *spec.model;
    const attn::model::ModelInfo& info = folder.model->info();
    const std::optional<std::int32_t> bos = folder.tokenizer->token_id("<|endoftext|>");
    const attn::Index room = info.max_positions - (bos ? 1 : 0);
    const attn::interv::InductionSequence seq =
        attn::interv::induction_sequence(int(attn::model::text_vocab(info)),
                                         std::min<attn::Index>(50, room / 2), kInductionSeed, bos);
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

}  // namespace cli
