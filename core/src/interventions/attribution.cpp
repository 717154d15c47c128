// AttnScope core — direct logit attribution. GPL-3.0-or-later.
#include "attn/interventions/attribution.hpp"

#include <string>

#include "attn/interventions/capture.hpp"
#include "attn/util/error.hpp"

namespace attn::interv {

namespace attribution_detail {

/// The frozen final norm and one token's unembedding as one linear map: logit part of a
/// residual part p = inv_scale · Σ gain_i u_i (p_i − centre·mean(p)).
struct LogitMap {
    VectorD weight;  ///< inv_scale · gain ⊙ u, in double
    bool centre = true;
    double constant = 0;  ///< bias · u + the output head's bias for the token
    double of(const Matrix& row) const {
        const VectorD p = row.row(0).transpose().cast<double>();
        const double mean = centre ? p.mean() : 0.0;
        return weight.dot(p) - mean * weight.sum();
    }
};

LogitMap logit_map(const model::Model& model, const Matrix& y, std::int32_t token) {
    const model::ModelInfo& info = model.info();
    if (token < 0 || token >= info.vocab)
        throw ArgumentError("token id " + std::to_string(token) + " is outside the vocabulary of " +
                            std::to_string(info.vocab));
    if (!info.pre_norm)
        throw ArgumentError(info.display +
                            " normalises after each block: its logits do not split into the "
                            "blocks' direct contributions");
    const model::Model::FrozenNorm norm = model.final_norm(y);
    float out_bias = 0.f;
    const Vector u = model.unembedding(token, &out_bias);
    LogitMap m;
    m.centre = norm.centre;
    m.weight =
        (double(norm.inv_scale) * norm.gain.cast<double>().array() * u.cast<double>().array())
            .matrix();
    m.constant = norm.bias.cast<double>().dot(u.cast<double>()) + double(out_bias);
    return m;
}

}  // namespace attribution_detail

double Attribution::total() const {
    return double(heads.cast<double>().sum()) + double(mlp.cast<double>().sum()) + embed +
           double(attn_bias.cast<double>().sum()) + norm_bias;
}

double token_logit(const model::Model& model, const Matrix& y, std::int32_t token) {
    const attribution_detail::LogitMap m = attribution_detail::logit_map(model, y, token);
    return m.of(y) + m.constant;
}

Attribution attribute(const model::Model& model, const std::vector<std::int32_t>& ids,
                      std::int32_t token, const model::RunControls& controls, Progress* progress) {
    const model::ModelInfo& info = model.info();
    CaptureHooks capture(info);
    const model::Run run = model::run(model, ids, controls, &capture, progress);
    Attribution a;
    a.token = token;
    a.position = run.logits_position;
    const Index at = a.position;
    const Matrix y = run.inputs.back().row(at);
    const attribution_detail::LogitMap m = attribution_detail::logit_map(model, y, token);
    a.heads.resize(info.layers, info.heads);
    a.mlp.resize(info.layers);
    a.attn_bias.resize(info.layers);
    for (int l = 0; l < info.layers; ++l) {
        for (int h = 0; h < info.heads; ++h)
            a.heads(l, h) = float(m.of(model.head_to_residual(l, h, capture.z_of(l, h).row(at))));
        a.mlp[l] = float(m.of(capture.mlp_of(l).row(at)));
        a.attn_bias[l] = float(m.of(model.attention_bias(l).transpose()));
    }
    a.embed = m.of(run.inputs.front().row(at));
    a.norm_bias = m.constant;
    a.logit = double(run.logits[token]);
    return a;
}

}  // namespace attn::interv
