// AttnScope core — one described layer forward with its tapes, and its reverse.
// GPL-3.0-or-later.
#include "reverse_layer.hpp"

#include <algorithm>

#include "attn/attention/mask.hpp"
#include "attn/models/run.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib::detail {

using blocks::Row;

namespace {

using model::NormOp;

Row<float> row_of(const model::FloatTensor* t) {
    return t ? Row<float>(t->row(0).transpose()) : Row<float>();
}

/// Head H's spec over N positions under C.
blocks::HeadSpec<float> head_spec(const LayerContext& c, int h, Index n, const BoolMatrix& mask) {
    const AttentionParams& p = c.controls.params;
    const model::AttentionOp& a = c.desc->attention;
    const float d_k = p.scale_dk.value_or(float(a.head_dim));
    const float factor = !p.scale ? 1.f : p.scale_factor ? *p.scale_factor : 1.f / std::sqrt(d_k);
    // τ after a soft-cap or bias: cap·tanh(s·m/cap)/τ + b/τ is the soft-cap cap/τ of s·m/τ
    // plus b/τ, so one multiplier and cap state it exactly.
    const float inv_tau = p.temperature > kHardTemperature ? 1.f / p.temperature : 1.f;
    blocks::HeadSpec<float> s;
    s.multiplier = factor * inv_tau;
    s.softcap = p.softcap > 0.f ? p.softcap * inv_tau : 0.f;
    if (p.bias) {
        s.bias.resize(n, n);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                s.bias(i, j) = p.bias->at(h, i, j) * inv_tau;
    }
    s.allowed = mask;
    for (const model::Knockout& k : c.interventions->knockouts) {
        if (k.layer != c.layer || k.head != h || k.key >= n) continue;
        if (k.query >= 0) {
            if (k.query < n) s.knocked.emplace_back(k.query, k.key);
        } else {
            for (Index i = 0; i < n; ++i)
                s.knocked.emplace_back(i, k.key);
        }
    }
    return s;
}

bool ablated(const LayerContext& c, int h) {
    const auto& a = c.interventions->ablated;
    return std::find(a.begin(), a.end(), model::HeadRef{c.layer, h}) != a.end();
}

/// Writes each head's q, k, v (after norms and rotary positions) into the tape.
void project(const LayerContext& c, const Matrix& h, AttentionTape& t) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = h.rows();
    Matrix q, k, v, qkv;
    if (a.qkv.w) {
        qkv = linear_forward(a.qkv, h);
    } else {
        q = linear_forward(a.q, h);
        k = linear_forward(a.k, h);
        v = linear_forward(a.v, h);
    }
    const auto part = [&](const Matrix& sep, blocks::Part p, Index head) -> Matrix {
        if (a.qkv.w)
            return blocks::fused_head<float>(qkv, a.layout, p, head, a.heads, a.kv_heads, hd);
        return sep.middleCols(head * hd, hd);
    };
    if (a.q_norm_whole.kind != NormOp::Kind::None) {
        t.q_whole = q;
        q = norm_forward(a.q_norm_whole, q);
    }
    if (a.k_norm_whole.kind != NormOp::Kind::None) {
        t.k_whole = k;
        k = norm_forward(a.k_norm_whole, k);
    }
    const bool rotary = (a.inv_freq || a.rope_by_length) && c.controls.rotary;
    if (rotary)
        t.rope = blocks::rope_table<float>(
            a.rope_by_length ? blocks::rope_frequencies(*a.rope_by_length, n) : *a.inv_freq, 0, n,
            a.rope_scale);
    const auto prepare = [&](Matrix m, const NormOp& norm, Matrix* pre) {
        if (norm.kind != NormOp::Kind::None) {
            *pre = m;
            m = norm_forward(norm, m);
        }
        if (rotary) blocks::rotate_half(m, t.rope);
        return m;
    };
    for (Index g = 0; g < a.kv_heads; ++g) {
        t.k_pre.emplace_back();
        t.k.push_back(prepare(part(k, blocks::Part::K, g), a.k_norm, &t.k_pre.back()));
        t.v.push_back(part(v, blocks::Part::V, g));
    }
    for (Index hq = 0; hq < a.heads; ++hq) {
        t.heads.emplace_back();
        t.q.push_back(prepare(part(q, blocks::Part::Q, hq), a.q_norm, &t.heads.back().q_pre));
    }
}

Matrix attention_forward(const LayerContext& c, const Matrix& h, AttentionTape& t) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = h.rows();
    t.h = h;
    project(c, h, t);
    const BoolMatrix mask = build_mask(c.controls.params.mask, n, n);
    Matrix merged(n, Index(a.heads) * hd);
    for (int hq = 0; hq < a.heads; ++hq) {
        HeadTape& ht = t.heads[std::size_t(hq)];
        const std::size_t g = std::size_t(blocks::kv_head_of(hq, a.heads, a.kv_heads));
        ht.spec = head_spec(c, hq, n, mask);
        ht.f = blocks::head_forward<float>(t.q[std::size_t(hq)], t.k[g], t.v[g], ht.spec);
        Matrix z = ht.f.out;
        if (ablated(c, hq)) {
            ht.zeroed = c.interventions->ablation == model::AblationMode::Zero;
            ht.mean = !ht.zeroed;
            if (ht.zeroed)
                z.setZero();
            else
                z.rowwise() = Row<float>(z.colwise().mean());
        }
        merged.middleCols(hq * hd, hd) = z;
    }
    return linear_forward(a.o, merged);
}

Matrix attention_backward(const LayerContext& c, const AttentionTape& t, const Matrix& dout,
                          std::vector<Matrix>* axg) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = t.h.rows();
    const Matrix dmerged = linear_backward(a.o, dout);
    std::vector<Matrix> dq(std::size_t(a.heads)), dk(std::size_t(a.kv_heads)),
        dv(std::size_t(a.kv_heads));
    for (std::size_t g = 0; g < dk.size(); ++g)
        dk[g] = dv[g] = Matrix::Zero(n, hd);
    for (int hq = 0; hq < a.heads; ++hq) {
        const HeadTape& ht = t.heads[std::size_t(hq)];
        const std::size_t g = std::size_t(blocks::kv_head_of(hq, a.heads, a.kv_heads));
        Matrix dz = dmerged.middleCols(hq * hd, hd);
        if (ht.zeroed) {  // nothing flows through a zeroed head; its weights count as 0
            dq[std::size_t(hq)] = Matrix::Zero(n, hd);
            if (axg) axg->push_back(Matrix::Zero(n, n));
            continue;
        }
        if (ht.mean) dz.rowwise() = Row<float>(dz.colwise().mean());
        const blocks::HeadGrad<float> hg =
            blocks::head_vjp<float>(t.q[std::size_t(hq)], t.k[g], t.v[g], ht.spec, ht.f, dz);
        if (axg) axg->push_back(ht.f.weights.cwiseProduct(hg.dweights));
        dq[std::size_t(hq)] = hg.dq;
        dk[g] += hg.dk;
        dv[g] += hg.dv;
    }
    // Back through rotary positions and the per-head norms.
    const bool rotary = t.rope.cos.size() > 0;
    const auto unprepare = [&](Matrix d, const NormOp& norm, const Matrix& pre) {
        if (rotary) blocks::rotate_half_vjp(d, t.rope);
        if (norm.kind != NormOp::Kind::None) d = norm_backward(norm, pre, d);
        return d;
    };
    for (int hq = 0; hq < a.heads; ++hq)
        dq[std::size_t(hq)] =
            unprepare(dq[std::size_t(hq)], a.q_norm, t.heads[std::size_t(hq)].q_pre);
    for (std::size_t g = 0; g < dk.size(); ++g)
        dk[g] = unprepare(dk[g], a.k_norm, t.k_pre[g]);
    if (a.qkv.w) {
        const Index width = Index(a.heads + 2 * a.kv_heads) * hd;
        Matrix dqkv = Matrix::Zero(n, width);
        for (int hq = 0; hq < a.heads; ++hq)
            blocks::fused_head_vjp<float>(dqkv, dq[std::size_t(hq)], a.layout, blocks::Part::Q, hq,
                                          a.heads, a.kv_heads, hd);
        for (Index g = 0; g < a.kv_heads; ++g) {
            blocks::fused_head_vjp<float>(dqkv, dk[std::size_t(g)], a.layout, blocks::Part::K, g,
                                          a.heads, a.kv_heads, hd);
            blocks::fused_head_vjp<float>(dqkv, dv[std::size_t(g)], a.layout, blocks::Part::V, g,
                                          a.heads, a.kv_heads, hd);
        }
        return linear_backward(a.qkv, dqkv);
    }
    Matrix dqm(n, Index(a.heads) * hd), dkm(n, Index(a.kv_heads) * hd), dvm(dkm.rows(), dkm.cols());
    for (int hq = 0; hq < a.heads; ++hq)
        dqm.middleCols(hq * hd, hd) = dq[std::size_t(hq)];
    for (Index g = 0; g < a.kv_heads; ++g) {
        dkm.middleCols(g * hd, hd) = dk[std::size_t(g)];
        dvm.middleCols(g * hd, hd) = dv[std::size_t(g)];
    }
    if (t.q_whole.size()) dqm = norm_backward(a.q_norm_whole, t.q_whole, dqm);
    if (t.k_whole.size()) dkm = norm_backward(a.k_norm_whole, t.k_whole, dkm);
    return linear_backward(a.q, dqm) + linear_backward(a.k, dkm) + linear_backward(a.v, dvm);
}

}  // namespace

std::size_t tape_bytes(const LayerTape& t) {
    std::size_t cells = 0;
    const auto add = [&](const auto& m) { cells += std::size_t(m.size()); };
    const auto add_all = [&](const std::vector<Matrix>& ms) {
        for (const Matrix& m : ms)
            add(m);
    };
    for (const Matrix* m :
         {&t.x, &t.u1, &t.x1, &t.u2, &t.a, &t.m, &t.attention.h, &t.attention.q_whole,
          &t.attention.k_whole, &t.mlp.h, &t.mlp.up, &t.mlp.gate})
        add(*m);
    add_all(t.attention.q);
    add_all(t.attention.k);
    add_all(t.attention.v);
    add_all(t.attention.k_pre);
    for (const HeadTape& h : t.attention.heads) {
        add(h.f.raw);
        add(h.f.weights);
        add(h.f.out);
        add(h.q_pre);
        add(h.spec.bias);
        cells += std::size_t(h.spec.allowed.size()) / sizeof(float) + 1;
    }
    for (const MlpTape& e : t.moe.tapes)
        for (const Matrix* m : {&e.h, &e.up, &e.gate})
            add(*m);
    add_all(t.moe.outs);
    return cells * sizeof(float);
}

Matrix norm_forward(const NormOp& n, const Matrix& x) {
    switch (n.kind) {
        case NormOp::Kind::None:
            return x;
        case NormOp::Kind::Layer:
            return blocks::layer_norm<float>(x, row_of(n.w), row_of(n.b), n.eps);
        case NormOp::Kind::Rms:
            return blocks::rms_norm<float>(x, row_of(n.w), n.eps, n.gain);
    }
    return x;
}

Matrix norm_backward(const NormOp& n, const Matrix& x, const Matrix& dy) {
    switch (n.kind) {
        case NormOp::Kind::None:
            return dy;
        case NormOp::Kind::Layer:
            return blocks::layer_norm_vjp<float>(x, row_of(n.w), n.eps, dy).dx;
        case NormOp::Kind::Rms:
            return blocks::rms_norm_vjp<float>(x, row_of(n.w), n.eps, dy, n.gain).dx;
    }
    return dy;
}

Matrix linear_forward(const model::LinearOp& op, const Matrix& x) {
    Matrix y = op.conv1d ? Matrix(x * op.w->matrix()) : op.w->mul_t(x);
    if (op.b) y.rowwise() += row_of(op.b);
    return y;
}

Matrix linear_backward(const model::LinearOp& op, const Matrix& dy) {
    return op.conv1d ? Matrix(dy * op.w->matrix().transpose()) : blocks::times_weight_t(dy, *op.w);
}

LayerContext layer_context(const model::Model& model, const model::LayerDescription& desc,
                           const model::RunControls& controls, int l) {
    LayerContext c{&desc, model::layer_controls(model, controls, l), &controls.interventions, l};
    if (!desc.attention.scaled)
        c.controls.params.scale = false;
    else if (desc.attention.scale_dk)
        c.controls.params.scale_dk = *desc.attention.scale_dk;
    return c;
}

Matrix layer_forward(const LayerContext& c, const Matrix& x, LayerTape* tape) {
    LayerTape local;
    LayerTape& t = tape ? *tape : local;
    const model::LayerDescription& d = *c.desc;
    t.x = x;
    switch (d.residual) {
        case blocks::Residual::PreNorm: {
            t.x1 = x + attention_forward(c, norm_forward(d.norm1, x), t.attention);
            return t.x1 + feed_forward(d, norm_forward(d.norm2, t.x1), t);
        }
        case blocks::Residual::Parallel:
            return x + attention_forward(c, norm_forward(d.norm1, x), t.attention) +
                   feed_forward(d, norm_forward(d.norm2, x), t);
        case blocks::Residual::PostNorm: {
            t.u1 = x + attention_forward(c, x, t.attention);
            t.x1 = norm_forward(d.norm1, t.u1);
            t.u2 = t.x1 + feed_forward(d, t.x1, t);
            return norm_forward(d.norm2, t.u2);
        }
        case blocks::Residual::Sandwich: {
            t.a = attention_forward(c, norm_forward(d.norm1, x), t.attention);
            t.x1 = x + norm_forward(d.post1, t.a);
            t.m = feed_forward(d, norm_forward(d.norm2, t.x1), t);
            return t.x1 + norm_forward(d.post2, t.m);
        }
    }
    throw ArgumentError("the reverse pass: an unknown residual wiring");
}

Matrix layer_backward(const LayerContext& c, const LayerTape& t, const Matrix& dy,
                      std::vector<Matrix>* axg) {
    const model::LayerDescription& d = *c.desc;
    switch (d.residual) {
        case blocks::Residual::PreNorm: {
            const Matrix dx1 = dy + norm_backward(d.norm2, t.x1, feed_backward(d, t, dy));
            return dx1 + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, dx1, axg));
        }
        case blocks::Residual::Parallel:
            return dy + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, dy, axg)) +
                   norm_backward(d.norm2, t.x, feed_backward(d, t, dy));
        case blocks::Residual::PostNorm: {
            const Matrix du2 = norm_backward(d.norm2, t.u2, dy);
            const Matrix dx1 = du2 + feed_backward(d, t, du2);
            const Matrix du1 = norm_backward(d.norm1, t.u1, dx1);
            return du1 + attention_backward(c, t.attention, du1, axg);
        }
        case blocks::Residual::Sandwich: {
            const Matrix dm = norm_backward(d.post2, t.m, dy);
            const Matrix dx1 = dy + norm_backward(d.norm2, t.x1, feed_backward(d, t, dm));
            const Matrix da = norm_backward(d.post1, t.a, dx1);
            return dx1 + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, da, axg));
        }
    }
    throw ArgumentError("the reverse pass: an unknown residual wiring");
}

}  // namespace attn::attrib::detail
