// AttnScope core — one described layer forward with its tapes, and its reverse.
// GPL-3.0-or-later.
#include "reverse_layer.hpp"

#include <algorithm>

#include "../util/parallel.hpp"
#include "attn/attention/attention.hpp"
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

/// Head H's spec over N positions under C: the forward of record's stages (head_score_stages),
/// bias head H; at τ ≤ kHardTemperature the softmax at τ = 1 (HeadSpec::from says why).
blocks::HeadSpec<float> head_spec(const LayerContext& c, int h, Index n, const BoolMatrix& mask) {
    const AttentionParams& p = c.controls.params;
    ScoreStages st = head_score_stages(p.scale_dk.value_or(float(c.desc->attention.head_dim)), p);
    st.bias_head = h;
    blocks::HeadSpec<float> s = blocks::HeadSpec<float>::from(st, n, n);
    s.allowed = mask;
    for (const model::Knockout& k : c.interventions->knockouts) {
        if (k.site != model::Site{model::kSingleStack, c.layer, h} || k.key >= n) continue;
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
    return std::find(a.begin(), a.end(), model::Site{model::kSingleStack, c.layer, h}) != a.end();
}

/// Writes each head's q, k, v (after norms and rotary positions) into the tape, per sequence.
void project(const LayerContext& c, const Matrix& h, AttentionTape& t) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = t.n, sequences = h.rows() / n;
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
    if (rotary) {
        // Every sequence starts at position 0: one sequence's table, repeated down the rows.
        const blocks::RopeTable<float> one = blocks::rope_table<float>(
            a.rope_by_length ? blocks::rope_frequencies(*a.rope_by_length, n) : *a.inv_freq, 0, n,
            a.rope_scale);
        t.rope = {one.cos.replicate(sequences, 1), one.sin.replicate(sequences, 1)};
    }
    const auto prepare = [&](Matrix m, const NormOp& norm, Matrix* pre) {
        if (norm.kind != NormOp::Kind::None) {
            *pre = m;
            m = norm_forward(norm, m);
        }
        if (rotary) blocks::rotate_half(m, t.rope);
        return m;
    };
    t.k_pre.assign(std::size_t(a.kv_heads), Matrix());
    t.q_pre.assign(std::size_t(a.heads), Matrix());
    t.k.assign(std::size_t(sequences * a.kv_heads), Matrix());
    t.v.assign(t.k.size(), Matrix());
    t.q.assign(std::size_t(sequences * a.heads), Matrix());
    for (Index g = 0; g < a.kv_heads; ++g) {
        const Matrix kg = prepare(part(k, blocks::Part::K, g), a.k_norm, &t.k_pre[std::size_t(g)]);
        const Matrix vg = part(v, blocks::Part::V, g);
        for (Index s = 0; s < sequences; ++s) {
            t.k[std::size_t(s * a.kv_heads + g)] = kg.middleRows(s * n, n);
            t.v[std::size_t(s * a.kv_heads + g)] = vg.middleRows(s * n, n);
        }
    }
    for (Index hq = 0; hq < a.heads; ++hq) {
        const Matrix qh =
            prepare(part(q, blocks::Part::Q, hq), a.q_norm, &t.q_pre[std::size_t(hq)]);
        for (Index s = 0; s < sequences; ++s)
            t.q[std::size_t(s * a.heads + hq)] = qh.middleRows(s * n, n);
    }
}

}  // namespace

Matrix attention_forward(const LayerContext& c, const Matrix& h, AttentionTape& t) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = c.sequence > 0 ? c.sequence : h.rows();
    if (n <= 0 || h.rows() % n != 0)
        throw ArgumentError("the reverse pass: " + std::to_string(h.rows()) +
                            " rows are not whole sequences of " + std::to_string(n));
    const Index sequences = h.rows() / n;
    t.rows = h.rows();
    t.n = n;
    project(c, h, t);
    const BoolMatrix mask = build_mask(c.controls.params.mask, n, n);
    t.specs.clear();
    for (int hq = 0; hq < a.heads; ++hq)
        t.specs.push_back(head_spec(c, hq, n, mask));
    t.heads.assign(std::size_t(sequences * a.heads), HeadTape());
    Matrix merged(h.rows(), Index(a.heads) * hd);
    // Each (sequence, head) on its own: the threads share the stacked steps' tasks, each writing
    // its own block; one sequence's heads stay on one thread (split, they measured slower on a
    // loaded machine, as its small products do).
    attn::detail::parallel_rows(
        sequences * a.heads, sequences > 1 ? double(n * n * hd * 4) : 0.0,
        [&](Index b, Index count) {
            for (Index task = b; task < b + count; ++task) {
                const Index s = task / a.heads, hq = task % a.heads;
                HeadTape& ht = t.heads[std::size_t(task)];
                const std::size_t g =
                    std::size_t(s * a.kv_heads + blocks::kv_head_of(hq, a.heads, a.kv_heads));
                ht.f = blocks::head_forward<float>(t.q[std::size_t(task)], t.k[g], t.v[g],
                                                   t.specs[std::size_t(hq)]);
                auto z = merged.block(s * n, hq * hd, n, hd);
                z = ht.f.out;
                if (ablated(c, int(hq))) {
                    ht.zeroed = c.interventions->ablation == model::AblationMode::Zero;
                    ht.mean = !ht.zeroed;
                    if (ht.zeroed)
                        z.setZero();
                    else
                        z.rowwise() = Row<float>(ht.f.out.colwise().mean());
                }
                // What the reverse does not read, freed: more steps' tapes fit the budget.
                ht.f.out = Matrix();
                if (t.specs[std::size_t(hq)].softcap <= 0.f) ht.f.raw = Matrix();
            }
        });
    return linear_forward(a.o, merged);
}

Matrix attention_backward(const LayerContext& c, const AttentionTape& t, const Matrix& dout,
                          std::vector<Matrix>* axg) {
    const model::AttentionOp& a = c.desc->attention;
    const Index hd = a.head_dim, n = t.n, rows = t.rows, sequences = rows / n;
    const Matrix dmerged = linear_backward(a.o, dout);
    // Per head / group over every row, each sequence's rows written by its own task.
    std::vector<Matrix> dq(std::size_t(a.heads), Matrix(rows, hd)),
        dk(std::size_t(a.kv_heads), Matrix::Zero(rows, hd)),
        dv(std::size_t(a.kv_heads), Matrix::Zero(rows, hd));
    if (axg) axg->assign(std::size_t(sequences * a.heads), Matrix());
    // One task per (sequence, group): the heads that share a group add into its rows in turn.
    const Index per_group = a.heads / a.kv_heads;
    attn::detail::parallel_rows(
        sequences * a.kv_heads, sequences > 1 ? double(per_group * n * n * hd * 8) : 0.0,
        [&](Index b, Index count) {
            for (Index task = b; task < b + count; ++task) {
                const Index s = task / a.kv_heads, g = task % a.kv_heads;
                const std::size_t kv = std::size_t(task);
                for (Index hq = g * per_group; hq < (g + 1) * per_group; ++hq) {
                    const std::size_t at = std::size_t(s * a.heads + hq);
                    const HeadTape& ht = t.heads[at];
                    auto dqh = dq[std::size_t(hq)].middleRows(s * n, n);
                    if (ht.zeroed) {  // nothing flows through a zeroed head; its weights count 0
                        dqh.setZero();
                        if (axg) (*axg)[at] = Matrix::Zero(n, n);
                        continue;
                    }
                    Matrix dz = dmerged.block(s * n, hq * hd, n, hd);
                    if (ht.mean) dz.rowwise() = Row<float>(dz.colwise().mean());
                    const blocks::HeadGrad<float> hg = blocks::head_vjp<float>(
                        t.q[at], t.k[kv], t.v[kv], t.specs[std::size_t(hq)], ht.f, dz);
                    if (axg) (*axg)[at] = ht.f.weights.cwiseProduct(hg.dweights);
                    dqh = hg.dq;
                    dk[std::size_t(g)].middleRows(s * n, n) += hg.dk;
                    dv[std::size_t(g)].middleRows(s * n, n) += hg.dv;
                }
            }
        });
    // Back through rotary positions and the per-head norms.
    const bool rotary = t.rope.cos.size() > 0;
    const auto unprepare = [&](Matrix d, const NormOp& norm, const Matrix& pre) {
        if (rotary) blocks::rotate_half_vjp(d, t.rope);
        if (norm.kind != NormOp::Kind::None) d = norm_backward(norm, pre, d);
        return d;
    };
    for (int hq = 0; hq < a.heads; ++hq)
        dq[std::size_t(hq)] = unprepare(dq[std::size_t(hq)], a.q_norm, t.q_pre[std::size_t(hq)]);
    for (std::size_t g = 0; g < dk.size(); ++g)
        dk[g] = unprepare(dk[g], a.k_norm, t.k_pre[g]);
    if (a.qkv.w) {
        const Index width = Index(a.heads + 2 * a.kv_heads) * hd;
        Matrix dqkv = Matrix::Zero(rows, width);
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
    Matrix dqm(rows, Index(a.heads) * hd), dkm(rows, Index(a.kv_heads) * hd),
        dvm(dkm.rows(), dkm.cols());
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

std::size_t tape_bytes(const LayerTape& t) {
    std::size_t cells = 0;
    const auto add = [&](const auto& m) { cells += std::size_t(m.size()); };
    const auto add_all = [&](const std::vector<Matrix>& ms) {
        for (const Matrix& m : ms)
            add(m);
    };
    for (const Matrix* m : {&t.x, &t.u1, &t.x1, &t.u2, &t.a, &t.m, &t.attention.q_whole,
                            &t.attention.k_whole, &t.mlp.up, &t.mlp.gate})
        add(*m);
    add_all(t.attention.q);
    add_all(t.attention.k);
    add_all(t.attention.v);
    add_all(t.attention.k_pre);
    add_all(t.attention.q_pre);
    for (const HeadTape& h : t.attention.heads) {
        add(h.f.raw);
        add(h.f.weights);
        add(h.f.out);
    }
    for (const blocks::HeadSpec<float>& s : t.attention.specs) {
        add(s.bias);
        cells += std::size_t(s.allowed.size()) / sizeof(float) + 1;
    }
    for (const MlpTape& e : t.moe.tapes)
        for (const Matrix* m : {&e.up, &e.gate})
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
    // In place: the reverse reads every page of the weights anyway (see StoredReads).
    Matrix y = op.conv1d ? Matrix(x * op.w->matrix()) : op.w->mul_t(x, model::StoredReads::InPlace);
    if (op.b) y.rowwise() += row_of(op.b);
    return y;
}

Matrix linear_backward(const model::LinearOp& op, const Matrix& dy) {
    return op.conv1d ? Matrix(dy * op.w->matrix().transpose()) : blocks::times_weight_t(dy, *op.w);
}

LayerContext layer_context(const model::Model& model, const model::LayerDescription& desc,
                           const model::RunControls& controls, int l) {
    LayerContext c;
    c.desc = &desc;
    c.controls = model::layer_controls(model, controls, l);
    c.interventions = &controls.interventions;
    c.layer = l;
    if (!desc.attention.scaled)
        c.controls.params.scale = false;
    else if (desc.attention.scale_dk)
        c.controls.params.scale_dk = *desc.attention.scale_dk;
    return c;
}

}  // namespace attn::attrib::detail
