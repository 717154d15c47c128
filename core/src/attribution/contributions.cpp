// AttnScope core — norm-based attribution and ALTI. GPL-3.0-or-later.
#include "attn/attribution/contributions.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "attn/models/post_norm.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib {

namespace {

/// Throws unless RUN holds every layer's heads, values and inputs of every position.
void check_whole_run(const model::Model& model, const model::Run& run) {
    const model::ModelInfo& info = model.info();
    if (run.layers.size() != std::size_t(info.layers) ||
        run.inputs.size() != std::size_t(info.layers) + 1 || run.reused != 0)
        throw ArgumentError("attribution needs a whole run of every layer of " + info.display);
}

/// Divides each row by its sum; a row summing to zero stays as it is.
void normalise_rows(MatrixD& m) {
    for (Index i = 0; i < m.rows(); ++i) {
        const double s = m.row(i).sum();
        if (s > 0) m.row(i) /= s;
    }
}

}  // namespace

BlockParts block_parts(const model::Model& model, const model::Run& run, int l) {
    check_whole_run(model, run);
    const model::ModelInfo& info = model.info();
    if (l < 0 || l >= info.layers)
        throw ArgumentError("layer " + std::to_string(l) + " does not exist");
    const model::LayerAttention& layer = run.layers[std::size_t(l)];
    const model::Interventions& iv = run.controls.interventions;
    BlockParts parts;
    for (int h = 0; h < info.heads; ++h) {
        Matrix a = layer.heads[std::size_t(h)].weights;
        if (a.size() == 0)
            throw ArgumentError("attribution needs every head's weights; this run streamed them");
        // An ablated head's z is no longer α·V: zero, or the mean over the rows of α·V, which is
        // the column means of α applied to V.
        if (std::find(iv.ablated.begin(), iv.ablated.end(),
                      model::Site{model::kSingleStack, l, h}) != iv.ablated.end()) {
            if (iv.ablation == model::AblationMode::Zero || a.rows() == 0) {
                a.setZero();
            } else {
                const Eigen::RowVectorXf mean = a.colwise().mean();
                a.rowwise() = mean;
            }
        }
        parts.alpha.push_back(std::move(a));
        parts.f.push_back(model.head_to_residual(l, h, layer.v[std::size_t(h)]));
    }
    parts.bias = model.attention_bias(l);
    return parts;
}

std::vector<Matrix> norm_based(const model::Model& model, const model::Run& run,
                               Progress* progress) {
    const model::ModelInfo& info = model.info();
    std::vector<Matrix> out;
    for (int l = 0; l < info.layers; ++l) {
        const BlockParts parts = block_parts(model, run, l);
        for (int h = 0; h < info.heads; ++h) {
            // ‖α f‖ = α ‖f‖: the weights are never negative.
            const Eigen::RowVectorXf norms = parts.f[std::size_t(h)].rowwise().norm().transpose();
            Matrix m = parts.alpha[std::size_t(h)];
            m.array().rowwise() *= norms.array();
            out.push_back(std::move(m));
        }
        report(progress, double(l + 1) / double(info.layers));
    }
    return out;
}

AltiTerms alti_terms(const model::Model& model, const model::Run& run, const BlockParts& parts,
                     int l, Index i) {
    const MatrixD x = run.inputs[std::size_t(l)].cast<double>();
    const Index n = x.rows(), d = x.cols();
    if (i < 0 || i >= n) throw ArgumentError("row " + std::to_string(i) + " is not a position");
    AltiTerms t;
    t.terms = MatrixD::Zero(n, d);
    t.terms.row(i) = x.row(i);
    for (std::size_t h = 0; h < parts.f.size(); ++h) {
        const VectorD a = parts.alpha[h].row(i).transpose().cast<double>();
        t.terms.noalias() += a.asDiagonal() * parts.f[h].cast<double>();
    }
    t.constant = parts.bias.cast<double>();
    // The block's output as the family computes it: its post-norm applied to x_i + attention.
    const Matrix u = (t.terms.colwise().sum() + t.constant.transpose()).cast<float>();
    if (model.info().pre_norm) return t;
    const auto* post = dynamic_cast<const model::PostNormBlocks*>(&model);
    if (!post)
        throw ArgumentError(model.info().display +
                            " normalises after each block but does not say how (PostNormBlocks)");
    const std::optional<model::Model::FrozenNorm> norm = post->post_attention_norm(l, u);
    // LayerNorm with σ_i frozen is linear: each term centred by its own mean, then scaled.
    const VectorD scale = norm->gain.cast<double>() * double(norm->inv_scale);
    for (Index j = 0; j < n; ++j) {
        auto row = t.terms.row(j);
        if (norm->centre) row.array() -= row.mean();
        row.array() *= scale.transpose().array();
    }
    if (norm->centre) t.constant.array() -= t.constant.mean();
    t.constant = (t.constant.array() * scale.array()).matrix() + norm->bias.cast<double>();
    return t;
}

std::vector<MatrixD> alti(const model::Model& model, const model::Run& run, Progress* progress) {
    const model::ModelInfo& info = model.info();
    std::vector<MatrixD> out;
    for (int l = 0; l < info.layers; ++l) {
        const BlockParts parts = block_parts(model, run, l);
        const Index n = run.inputs[std::size_t(l)].rows();
        MatrixD c = MatrixD::Zero(n, n);
        for (Index i = 0; i < n; ++i) {
            const AltiTerms t = alti_terms(model, run, parts, l, i);
            const Eigen::RowVectorXd y = t.terms.colwise().sum() + t.constant.transpose();
            const double norm = y.lpNorm<1>();
            for (Index j = 0; j < n; ++j)
                c(i, j) = std::max(0.0, norm - (y - t.terms.row(j)).lpNorm<1>());
        }
        normalise_rows(c);
        out.push_back(std::move(c));
        report(progress, double(l + 1) / double(info.layers));
    }
    return out;
}

MatrixD compose_layers(const std::vector<MatrixD>& layers) {
    if (layers.empty()) throw ArgumentError("no layers to compose");
    MatrixD r = layers.front();
    for (std::size_t l = 1; l < layers.size(); ++l)
        r = layers[l] * r;
    return r;
}

}  // namespace attn::attrib
