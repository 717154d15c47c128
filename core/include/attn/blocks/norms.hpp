// AttnScope core — the norms every family uses, row by row, with their reverse: LayerNorm (gain
// and bias), RMSNorm (gain w or Gemma's 1 + w), and each with its scale frozen (a linear map,
// what attribution through a norm holds fixed). GPL-3.0-or-later.
#pragma once

#include <cmath>

#include "attn/blocks/tensor.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::blocks {

/// Row-wise LayerNorm: w ⊙ (x − mean) / √(var + ε) + b (var the biased variance, as PyTorch).
template <class S>
Mat<S> layer_norm(const Mat<S>& x, const RowRef<S>& w, const RowRef<S>& b, double eps) {
    Mat<S> out(x.rows(), x.cols());
    for (Index i = 0; i < x.rows(); ++i) {
        const auto row = x.row(i);
        const S mean = row.mean();
        const S var = (row.array() - mean).square().mean();
        out.row(i) = ((row.array() - mean) / std::sqrt(var + S(eps))).matrix();
    }
    out.array().rowwise() *= w.array();
    if (b.size()) out.array().rowwise() += b.array();
    return out;
}

/// How RMSNorm applies its weight: w (Llama, Mistral, Qwen) or 1 + w (Gemma, stored offset).
enum class Gain { W, OnePlusW };

/// Row-wise RMSNorm: g ⊙ x / √(mean(x²) + ε), g = w or 1 + w, as transformers' LlamaRMSNorm and
/// GemmaRMSNorm.
template <class S>
Mat<S> rms_norm(const Mat<S>& x, const RowRef<S>& w, double eps, Gain gain = Gain::W) {
    Mat<S> out(x.rows(), x.cols());
    for (Index i = 0; i < x.rows(); ++i) {
        const S ms = x.row(i).squaredNorm() / S(x.cols());
        out.row(i) = x.row(i) * (S(1) / std::sqrt(ms + S(eps)));
    }
    if (gain == Gain::W)
        out.array().rowwise() *= w.array();
    else
        out.array().rowwise() *= (w.array() + S(1));
    return out;
}

/// LayerNorm by a family's gain W and bias B tensors ([d] each, float32 in memory).
inline Matrix layer_norm(const Matrix& x, const model::FloatTensor& w, const model::FloatTensor& b,
                         double eps) {
    return layer_norm<float>(x, w.matrix().row(0), b.matrix().row(0), eps);
}

/// RMSNorm by a family's gain tensor W ([d], float32 in memory).
inline Matrix rms_norm(const Matrix& x, const model::FloatTensor& w, double eps,
                       Gain gain = Gain::W) {
    return rms_norm<float>(x, w.matrix().row(0), eps, gain);
}

/// A norm's reverse: the gradients of x, the gain and the bias from the output's DY.
template <class S>
struct NormGrad {
    Mat<S> dx;
    Row<S> dw, db;  ///< db empty for RMSNorm
};

/// LayerNorm's vector–Jacobian product at X for the output gradient DY.
template <class S>
NormGrad<S> layer_norm_vjp(const Mat<S>& x, const RowRef<S>& w, double eps, const Mat<S>& dy) {
    NormGrad<S> g{Mat<S>(x.rows(), x.cols()), Row<S>::Zero(x.cols()), dy.colwise().sum()};
    for (Index i = 0; i < x.rows(); ++i) {
        const S mean = x.row(i).mean();
        const S inv = S(1) / std::sqrt((x.row(i).array() - mean).square().mean() + S(eps));
        const Row<S> xhat = (x.row(i).array() - mean) * inv;
        const Row<S> dxhat = dy.row(i).cwiseProduct(w);
        g.dw += dy.row(i).cwiseProduct(xhat);
        // x̂'s Jacobian removes the mean and the component along x̂ itself.
        g.dx.row(i) =
            inv * (dxhat.array() - dxhat.mean() - xhat.array() * dxhat.cwiseProduct(xhat).mean());
    }
    return g;
}

/// RMSNorm's vector–Jacobian product at X for the output gradient DY.
template <class S>
NormGrad<S> rms_norm_vjp(const Mat<S>& x, const RowRef<S>& w, double eps, const Mat<S>& dy,
                         Gain gain = Gain::W) {
    const Row<S> g_ = gain == Gain::W ? Row<S>(w) : Row<S>(w.array() + S(1));
    NormGrad<S> g{Mat<S>(x.rows(), x.cols()), Row<S>::Zero(x.cols()), Row<S>()};
    for (Index i = 0; i < x.rows(); ++i) {
        const S r = S(1) / std::sqrt(x.row(i).squaredNorm() / S(x.cols()) + S(eps));
        const Row<S> dxhat = dy.row(i).cwiseProduct(g_);
        g.dw += dy.row(i).cwiseProduct(x.row(i)) * r;
        g.dx.row(i) = r * dxhat - x.row(i) * (r * r * r * dxhat.dot(x.row(i)) / S(x.cols()));
    }
    return g;
}

/// A norm with its scale frozen at some input: y = gain ⊙ (x − centre·mean(x)) · inv_scale +
/// bias, linear in x (each row its own inv_scale).
template <class S>
struct FrozenNorm {
    bool centre = true;  ///< LayerNorm subtracts the mean; RMSNorm does not
    Row<S> inv_scale;    ///< per row: 1/√(var + ε) or 1/√(mean(x²) + ε) of the frozen input
    Row<S> gain, bias;   ///< bias empty: none
};

/// LayerNorm at X frozen: its scales kept, so it acts on other inputs linearly.
template <class S>
FrozenNorm<S> freeze_layer_norm(const Mat<S>& x, const RowRef<S>& w, const RowRef<S>& b,
                                double eps) {
    FrozenNorm<S> f{true, Row<S>(x.rows()), Row<S>(w), Row<S>(b)};
    for (Index i = 0; i < x.rows(); ++i) {
        const S mean = x.row(i).mean();
        f.inv_scale(i) = S(1) / std::sqrt((x.row(i).array() - mean).square().mean() + S(eps));
    }
    return f;
}

/// RMSNorm at X frozen.
template <class S>
FrozenNorm<S> freeze_rms_norm(const Mat<S>& x, const RowRef<S>& w, double eps,
                              Gain gain = Gain::W) {
    FrozenNorm<S> f{false, Row<S>(x.rows()), gain == Gain::W ? Row<S>(w) : Row<S>(w.array() + S(1)),
                    Row<S>()};
    for (Index i = 0; i < x.rows(); ++i)
        f.inv_scale(i) = S(1) / std::sqrt(x.row(i).squaredNorm() / S(x.cols()) + S(eps));
    return f;
}

/// The frozen norm applied to Y (rows as the frozen input's). WITH_BIAS false leaves the bias
/// out: a term of a sum, whose bias is counted once.
template <class S>
Mat<S> apply_frozen(const FrozenNorm<S>& f, const Mat<S>& y, bool with_bias = true) {
    Mat<S> out(y.rows(), y.cols());
    for (Index i = 0; i < y.rows(); ++i) {
        const S mean = f.centre ? y.row(i).mean() : S(0);
        out.row(i) = ((y.row(i).array() - mean) * f.inv_scale(i) * f.gain.array()).matrix();
        if (with_bias && f.bias.size()) out.row(i) += f.bias;
    }
    return out;
}

/// The frozen norm's vector–Jacobian product (it is linear: the transpose of its map).
template <class S>
Mat<S> frozen_vjp(const FrozenNorm<S>& f, const Mat<S>& dy) {
    Mat<S> dx(dy.rows(), dy.cols());
    for (Index i = 0; i < dy.rows(); ++i) {
        const Row<S> t = dy.row(i).cwiseProduct(f.gain) * f.inv_scale(i);
        dx.row(i) = f.centre ? Row<S>(t.array() - t.mean()) : t;
    }
    return dx;
}

}  // namespace attn::blocks
