// AttnScope core — the feed-forward activations (GELU exact and tanh, SiLU, ReLU) and the gated
// form act(gate) ⊙ up, with their reverse. GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <string_view>

#include "attn/blocks/tensor.hpp"

namespace attn::blocks {

/// A feed-forward activation.
enum class Activation {
    GeluExact,  ///< x·Φ(x) with erf: transformers' "gelu"
    GeluTanh,   ///< the tanh approximation: "gelu_new", "gelu_pytorch_tanh", "gelu_fast"'s formula
    Silu,       ///< x·σ(x): "silu", "swish"
    Relu,       ///< max(0, x)
};

/// Activation by transformers' name (hidden_act / activation_function); false when unknown.
bool activation_from_name(std::string_view name, Activation& out);

/// ACT applied to X in place.
template <class S>
void activate(Mat<S>& x, Activation act) {
    switch (act) {
        case Activation::GeluExact: {
            const S r = lit<S>(0.70710678118f, 0.70710678118654752);  // 1/√2
            x = x.unaryExpr([r](S v) { return S(0.5) * v * (S(1) + std::erf(v * r)); });
            return;
        }
        case Activation::GeluTanh: {
            const S c = lit<S>(0.7978845608028654f, 0.7978845608028654);  // √(2/π)
            const S k = lit<S>(0.044715f, 0.044715);
            x = (S(0.5) * x.array() * (S(1) + (c * (x.array() + k * x.array().cube())).tanh()))
                    .matrix();
            return;
        }
        case Activation::Silu:
            x = (x.array() / (S(1) + (-x.array()).exp())).matrix();
            return;
        case Activation::Relu:
            x = x.cwiseMax(S(0));
            return;
    }
}

/// ACT's derivative at each element of X.
template <class S>
Mat<S> activation_derivative(const Mat<S>& x, Activation act) {
    switch (act) {
        case Activation::GeluExact: {
            const S r = lit<S>(0.70710678118f, 0.70710678118654752);
            const S pdf = lit<S>(0.3989422804f, 0.3989422804014327);  // 1/√(2π)
            return x.unaryExpr([r, pdf](S v) {
                return S(0.5) * (S(1) + std::erf(v * r)) + v * pdf * std::exp(-S(0.5) * v * v);
            });
        }
        case Activation::GeluTanh: {
            const S c = lit<S>(0.7978845608028654f, 0.7978845608028654);
            const S k = lit<S>(0.044715f, 0.044715);
            return x.unaryExpr([c, k](S v) {
                const S t = std::tanh(c * (v + k * v * v * v));
                return S(0.5) * (S(1) + t) +
                       S(0.5) * v * (S(1) - t * t) * c * (S(1) + S(3) * k * v * v);
            });
        }
        case Activation::Silu: {
            // σ(x) by Eigen's vectorised exponential, as activate's SiLU computes it.
            const Mat<S> s = (S(1) + (-x.array()).exp()).inverse().matrix();
            return (s.array() * (S(1) + x.array() * (S(1) - s.array()))).matrix();
        }
        case Activation::Relu:
            return x.unaryExpr([](S v) { return v > S(0) ? S(1) : S(0); });
    }
    return Mat<S>();
}

/// The activation's vector–Jacobian product: DY ⊙ act′(X).
template <class S>
Mat<S> activate_vjp(const Mat<S>& x, Activation act, const Mat<S>& dy) {
    return dy.cwiseProduct(activation_derivative(x, act));
}

/// The gated form: act(GATE) ⊙ UP (SwiGLU with Silu, GeGLU with a GELU).
template <class S>
Mat<S> gated(Mat<S> gate, const Mat<S>& up, Activation act) {
    activate(gate, act);
    return gate.cwiseProduct(up);
}

/// The gated form's reverse: the gradients of GATE and UP.
template <class S>
struct GatedGrad {
    Mat<S> dgate, dup;
};

/// The gated form's vector–Jacobian product at GATE, UP for DY.
template <class S>
GatedGrad<S> gated_vjp(const Mat<S>& gate, const Mat<S>& up, Activation act, const Mat<S>& dy) {
    Mat<S> a = gate;
    activate(a, act);
    return {activate_vjp<S>(gate, act, Mat<S>(dy.cwiseProduct(up))), Mat<S>(dy.cwiseProduct(a))};
}

}  // namespace attn::blocks
