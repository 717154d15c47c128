// AttnScope core — linear projections with their reverse: y = x·Wᵀ + b for every operand a
// family holds its weights in (a FloatTensor of F32/F16/BF16 values, a matrix, GPT-2's Conv1D
// [in, out] layout), and the fused layouts (q/k/v in one matrix, gate/up in one).
// GPL-3.0-or-later.
#pragma once

#include "attn/blocks/tensor.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::blocks {

/// A weight of Hugging Face's Linear layout [out, in] held as any Eigen matrix.
template <class M>
struct OutIn {
    const M& w;
};
/// A weight of GPT-2's Conv1D layout [in, out] (y = x·W + b), held as any Eigen matrix.
template <class M>
struct InOut {
    const M& w;
};

/// X · Wᵀ for a FloatTensor [out, in] (its own product: tiles of half values widened in place).
inline Matrix times_weight(const Matrix& x, const model::FloatTensor& w) {
    return w.mul_t(x);
}
/// DY · W for a FloatTensor [out, in]: the input's gradient (its own product, FloatTensor::mul).
inline Matrix times_weight_t(const Matrix& dy, const model::FloatTensor& w) {
    return w.mul(dy);
}

/// X · Wᵀ for a matrix [out, in].
template <class S, class M>
Mat<S> times_weight(const Mat<S>& x, OutIn<M> w) {
    return x * w.w.transpose();
}
/// DY · W for a matrix [out, in].
template <class S, class M>
Mat<S> times_weight_t(const Mat<S>& dy, OutIn<M> w) {
    return dy * w.w;
}
/// X · W for a Conv1D weight [in, out].
template <class S, class M>
Mat<S> times_weight(const Mat<S>& x, InOut<M> w) {
    return x * w.w;
}
/// DY · Wᵀ for a Conv1D weight [in, out].
template <class S, class M>
Mat<S> times_weight_t(const Mat<S>& dy, InOut<M> w) {
    return dy * w.w.transpose();
}

/// A linear projection: x·Wᵀ (+ b), W any operand above, B a row (empty: no bias).
template <class S, class W>
Mat<S> linear(const Mat<S>& x, const W& w, const RowRef<S>& b) {
    Mat<S> out = times_weight(x, w);
    if (b.size()) out.rowwise() += b;
    return out;
}

/// A family's projection held as FloatTensors: weight [out, in] (F32, or F16 / BF16 kept as
/// stored), bias [out] when it has one.
struct TensorLinear {
    model::FloatTensor w, b;
    bool has_bias = false;
    /// x·Wᵀ (+ b).
    Matrix operator()(const Matrix& x) const {
        return has_bias ? linear<float>(x, w, b.matrix().row(0))
                        : linear<float>(x, w, Row<float>());
    }
};

/// A projection's reverse: the gradients of its input, weight ([out, in]) and bias.
template <class S>
struct LinearGrad {
    Mat<S> dx, dw;
    Row<S> db;
};

/// The input's gradient of a projection by W for DY (what attribution needs: the weights are
/// not trained here).
template <class S, class W>
Mat<S> linear_vjp(const Mat<S>& dy, const W& w) {
    return times_weight_t(dy, w);
}

/// Every gradient of a projection at X for DY: input, weight as [out, in], bias.
template <class S, class W>
LinearGrad<S> linear_vjp_all(const Mat<S>& x, const W& w, const Mat<S>& dy) {
    return {times_weight_t(dy, w), dy.transpose() * x, dy.colwise().sum()};
}

/// How a fused q/k/v projection orders its output columns.
enum class FusedQkv {
    Blocks,   ///< all q, then all k, then all v (GPT-2's c_attn, Phi-3's qkv_proj)
    PerHead,  ///< head by head, q k v of each ([heads, 3, head_dim]: GPT-NeoX's query_key_value)
};

/// Which of q, k and v.
enum class Part { Q = 0, K = 1, V = 2 };

/// The first column of PART's head H in a fused output of HEADS query heads and KV_HEADS
/// key/value heads of HEAD_DIM each (PerHead needs heads = kv_heads).
inline Index fused_column(FusedQkv layout, Part part, Index h, Index heads, Index kv_heads,
                          Index head_dim) {
    if (layout == FusedQkv::PerHead) return (h * 3 + Index(part)) * head_dim;
    const Index start = part == Part::Q ? 0 : part == Part::K ? heads : heads + kv_heads;
    return (start + h) * head_dim;
}

/// PART's head H of the fused output QKV (rows × head_dim).
template <class S>
Mat<S> fused_head(const Mat<S>& qkv, FusedQkv layout, Part part, Index h, Index heads,
                  Index kv_heads, Index head_dim) {
    return qkv.middleCols(fused_column(layout, part, h, heads, kv_heads, head_dim), head_dim);
}

/// The split's reverse: DHEAD (PART's head H) added into the fused output's gradient DQKV.
template <class S>
void fused_head_vjp(Mat<S>& dqkv, const Mat<S>& dhead, FusedQkv layout, Part part, Index h,
                    Index heads, Index kv_heads, Index head_dim) {
    dqkv.middleCols(fused_column(layout, part, h, heads, kv_heads, head_dim), head_dim) += dhead;
}

/// A fused gate/up output (Phi-3's gate_up_proj: gate's columns, then up's) split in two.
template <class S>
std::pair<Mat<S>, Mat<S>> split_gate_up(const Mat<S>& fused) {
    const Index half = fused.cols() / 2;
    return {fused.leftCols(half), fused.rightCols(half)};
}

/// The split's reverse: the fused gradient from DGATE and DUP.
template <class S>
Mat<S> split_gate_up_vjp(const Mat<S>& dgate, const Mat<S>& dup) {
    Mat<S> out(dgate.rows(), dgate.cols() + dup.cols());
    out << dgate, dup;
    return out;
}

}  // namespace attn::blocks
