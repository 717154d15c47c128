// AttnScope — what the command line's interventions add to the output. GPL-3.0-or-later.
#include "cli/intervention_output.hpp"

#include <algorithm>
#include <string>

#include "attn/interventions/attribution.hpp"
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

}  // namespace cli
