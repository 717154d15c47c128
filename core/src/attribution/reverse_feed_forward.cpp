// AttnScope core — the feed-forward block of a described layer with its reverse: an MLP (plain,
// gated, or with Phi-3's fused gate_up projection) or a sparse mixture of experts whose routing
// is held fixed while the chosen experts' weights carry their gradient. GPL-3.0-or-later.
#include "../util/parallel.hpp"
#include "attn/blocks/projections.hpp"
#include "reverse_layer.hpp"

namespace attn::attrib::detail {

namespace {

/// BODY(first, count) over bands of ROWS rows of COLS values on the threads: the activations
/// are elementwise, and on stacked steps (integrated gradients: 384 × 4864 values a layer) the
/// other thread would otherwise wait for them between two products it shares.
template <class Body>
void by_bands(Index rows, Index cols, Body&& body) {
    // An activation costs about ten multiply-adds a value (an exponential, a division).
    attn::detail::parallel_rows(rows, 10.0 * double(cols), body);
}

Matrix mlp_forward(const model::MlpOp& m, const Matrix& h, MlpTape& t) {
    if (m.gate_up.w) {
        auto [gate, up] = blocks::split_gate_up<float>(linear_forward(m.gate_up, h));
        t.gate = std::move(gate);
        t.up = std::move(up);
    } else {
        t.up = linear_forward(m.up, h);
        if (m.gate.w) t.gate = linear_forward(m.gate, h);
    }
    Matrix hidden(t.up.rows(), t.up.cols());
    by_bands(hidden.rows(), hidden.cols(), [&](Index b, Index n) {
        if (t.gate.size()) {
            hidden.middleRows(b, n) =
                blocks::gated<float>(t.gate.middleRows(b, n), t.up.middleRows(b, n), m.act);
            return;
        }
        Matrix band = t.up.middleRows(b, n);
        blocks::activate(band, m.act);
        hidden.middleRows(b, n) = band;
    });
    return linear_forward(m.down, hidden);
}

Matrix mlp_backward(const model::MlpOp& m, const MlpTape& t, const Matrix& dout) {
    const Matrix dhidden = linear_backward(m.down, dout);
    const Index rows = dhidden.rows(), cols = dhidden.cols();
    if (!t.gate.size()) {
        Matrix dup(rows, cols);
        by_bands(rows, cols, [&](Index b, Index n) {
            dup.middleRows(b, n) =
                blocks::activate_vjp<float>(t.up.middleRows(b, n), m.act, dhidden.middleRows(b, n));
        });
        return linear_backward(m.up, dup);
    }
    blocks::GatedGrad<float> g{Matrix(rows, cols), Matrix(rows, cols)};
    by_bands(rows, cols, [&](Index b, Index n) {
        const blocks::GatedGrad<float> band = blocks::gated_vjp<float>(
            t.gate.middleRows(b, n), t.up.middleRows(b, n), m.act, dhidden.middleRows(b, n));
        g.dgate.middleRows(b, n) = band.dgate;
        g.dup.middleRows(b, n) = band.dup;
    });
    if (m.gate_up.w)
        return linear_backward(m.gate_up, blocks::split_gate_up_vjp<float>(g.dgate, g.dup));
    return linear_backward(m.gate, g.dgate) + linear_backward(m.up, g.dup);
}

/// As blocks::mixture (the forward of record), expert by expert in the same order, so the sums
/// are the run's to the last bit.
Matrix moe_forward(const model::MoeOp& m, const Matrix& h, MoeTape& t) {
    const std::size_t experts = m.experts.size();
    t.routing = blocks::route_top_k<float>(linear_forward(m.router, h), Index(m.top_k));
    t.rows.assign(experts, {});
    t.tapes.assign(experts, {});
    t.outs.assign(experts, {});
    Matrix out;
    for (std::size_t e = 0; e < experts; ++e) {
        auto& rows = t.rows[e];
        for (Index i = 0; i < h.rows(); ++i)
            for (Index j = 0; j < t.routing.experts.cols(); ++j)
                if (t.routing.experts(i, j) == int(e)) rows.emplace_back(i, j);
        if (rows.empty()) continue;
        Matrix in(Index(rows.size()), h.cols());
        for (std::size_t r = 0; r < rows.size(); ++r)
            in.row(Index(r)) = h.row(rows[r].first);
        t.outs[e] = mlp_forward(m.experts[e], in, t.tapes[e]);
        if (out.size() == 0) out = Matrix::Zero(h.rows(), t.outs[e].cols());
        for (std::size_t r = 0; r < rows.size(); ++r)
            out.row(rows[r].first) +=
                t.routing.weights(rows[r].first, rows[r].second) * t.outs[e].row(Index(r));
    }
    return out;
}

Matrix moe_backward(const model::MoeOp& m, const MoeTape& t, const Matrix& dout) {
    const blocks::Routing<float>& r = t.routing;
    const Index n = dout.rows(), k = r.experts.cols();
    Matrix dh;
    Matrix dweights = Matrix::Zero(n, k);
    for (std::size_t e = 0; e < m.experts.size(); ++e) {
        const auto& rows = t.rows[e];
        if (rows.empty()) continue;
        Matrix dy(Index(rows.size()), dout.cols());
        for (std::size_t q = 0; q < rows.size(); ++q) {
            const auto [i, j] = rows[q];
            dy.row(Index(q)) = r.weights(i, j) * dout.row(i);
            dweights(i, j) = dout.row(i).dot(t.outs[e].row(Index(q)));
        }
        const Matrix dx = mlp_backward(m.experts[e], t.tapes[e], dy);
        if (dh.size() == 0) dh = Matrix::Zero(n, dx.cols());
        for (std::size_t q = 0; q < rows.size(); ++q)
            dh.row(rows[q].first) += dx.row(Index(q));
    }
    // The weights are the softmax of the chosen logits: d logit_c = w_c (dw_c − Σ_j w_j dw_j);
    // the experts not chosen get nothing (their logits cancel out of the ratio).
    Matrix dlogits = Matrix::Zero(n, Index(m.experts.size()));
    for (Index i = 0; i < n; ++i) {
        const float inner = r.weights.row(i).dot(dweights.row(i));
        for (Index j = 0; j < k; ++j)
            dlogits(i, r.experts(i, j)) += r.weights(i, j) * (dweights(i, j) - inner);
    }
    const Matrix drouter = linear_backward(m.router, dlogits);
    return dh.size() ? Matrix(dh + drouter) : drouter;
}

}  // namespace

Matrix feed_forward(const model::LayerDescription& d, const Matrix& h, LayerTape& t) {
    if (!d.moe.experts.empty()) return moe_forward(d.moe, h, t.moe);
    return mlp_forward(d.mlp, h, t.mlp);
}

Matrix feed_backward(const model::LayerDescription& d, const LayerTape& t, const Matrix& dout) {
    if (!d.moe.experts.empty()) return moe_backward(d.moe, t.moe, dout);
    return mlp_backward(d.mlp, t.mlp, dout);
}

}  // namespace attn::attrib::detail
