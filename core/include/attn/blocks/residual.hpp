// AttnScope core — how a layer wires its sublayers into the residual stream, with the reverse:
// pre-norm x + f(n(x)), post-norm n(x + f(x)), sandwich x + n₂(f(n₁(x))), parallel
// x + f(n₁(x)) + g(n₂(x)). Sublayers and norms are callables (forward: rows → rows; reverse:
// output gradient → input gradient, closing over what their forward kept). GPL-3.0-or-later.
#pragma once

#include "attn/blocks/tensor.hpp"

namespace attn::blocks {

/// The residual wirings families use.
enum class Residual {
    PreNorm,   ///< x + f(norm(x)): GPT-2, Llama, …
    PostNorm,  ///< norm(x + f(x)): BERT
    Sandwich,  ///< x + post(f(pre(x))): Gemma 2 and 3
    Parallel,  ///< x + f(norm₁(x)) + g(norm₂(x)): GPT-NeoX's use_parallel_residual
};

/// Pre-norm: X += F(NORM(X)); returns F's output (what the hooks see).
template <class S, class N, class F>
Mat<S> pre_norm(Mat<S>& x, N&& norm, F&& f) {
    const Mat<S> out = f(norm(x));
    x += out;
    return out;
}

/// Pre-norm's reverse: dy + norm′ᵀ(f′ᵀ(dy)).
template <class S, class NV, class FV>
Mat<S> pre_norm_vjp(const Mat<S>& dy, NV&& norm_vjp, FV&& f_vjp) {
    return dy + norm_vjp(f_vjp(dy));
}

/// Post-norm: X = NORM(X + F(X)); returns F's output.
template <class S, class N, class F>
Mat<S> post_norm(Mat<S>& x, N&& norm, F&& f) {
    const Mat<S> out = f(x);
    x = norm(x + out);
    return out;
}

/// Post-norm's reverse: t = norm′ᵀ(dy), then t + f′ᵀ(t).
template <class S, class NV, class FV>
Mat<S> post_norm_vjp(const Mat<S>& dy, NV&& norm_vjp, FV&& f_vjp) {
    const Mat<S> t = norm_vjp(dy);
    return t + f_vjp(t);
}

/// Sandwich: X += POST(F(PRE(X))); returns POST's output.
template <class S, class N1, class F, class N2>
Mat<S> sandwich(Mat<S>& x, N1&& pre, F&& f, N2&& post) {
    const Mat<S> out = post(f(pre(x)));
    x += out;
    return out;
}

/// Sandwich's reverse.
template <class S, class N1V, class FV, class N2V>
Mat<S> sandwich_vjp(const Mat<S>& dy, N1V&& pre_vjp, FV&& f_vjp, N2V&& post_vjp) {
    return dy + pre_vjp(f_vjp(post_vjp(dy)));
}

/// Parallel: X = X + F(N1(X)) + G(N2(X)), both read the same X; returns F's and G's outputs.
template <class S, class N1, class F, class N2, class G>
std::pair<Mat<S>, Mat<S>> parallel(Mat<S>& x, N1&& n1, F&& f, N2&& n2, G&& g) {
    std::pair<Mat<S>, Mat<S>> out{f(n1(x)), Mat<S>()};
    out.second = g(n2(x));
    x += out.first + out.second;
    return out;
}

/// Parallel's reverse.
template <class S, class N1V, class FV, class N2V, class GV>
Mat<S> parallel_vjp(const Mat<S>& dy, N1V&& n1_vjp, FV&& f_vjp, N2V&& n2_vjp, GV&& g_vjp) {
    return dy + n1_vjp(f_vjp(dy)) + n2_vjp(g_vjp(dy));
}

}  // namespace attn::blocks
