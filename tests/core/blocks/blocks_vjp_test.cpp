// Every block's vector–Jacobian product against central finite differences in double, on
// seeded random inputs.
#include <gtest/gtest.h>

#include "attn/blocks/attention.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/blocks/rotary.hpp"
#include "blocks_fd_util.hpp"

namespace {

using namespace attn;
using namespace attn::blocks;
using blocks_fd::fd_gradient;
using blocks_fd::MatD;
using blocks_fd::normal;
using blocks_fd::relative_error;
using RowD = Row<double>;

// Central differences of step 1e-6 on O(1) values: truncation ~1e-12, rounding ~1e-10.
constexpr double kFd = 1e-7;

TEST(BlocksVjp, LayerNormInputGainAndBias) {
    std::mt19937 rng(1);
    const MatD x = normal(rng, 4, 7) * 2.0, dy = normal(rng, 4, 7);
    const RowD w = normal(rng, 1, 7), b = normal(rng, 1, 7);
    const double eps = 1e-5;
    const NormGrad<double> g = layer_norm_vjp<double>(x, w, eps, dy);
    EXPECT_LT(relative_error(
                  g.dx, fd_gradient([&](const MatD& t) { return layer_norm<double>(t, w, b, eps); },
                                    x, dy)),
              kFd);
    const MatD dw = fd_gradient(
        [&](const MatD& t) { return layer_norm<double>(x, RowD(t), b, eps); }, MatD(w), dy);
    EXPECT_LT(relative_error(MatD(g.dw), dw), kFd);
    const MatD db = fd_gradient(
        [&](const MatD& t) { return layer_norm<double>(x, w, RowD(t), eps); }, MatD(b), dy);
    EXPECT_LT(relative_error(MatD(g.db), db), kFd);
}

TEST(BlocksVjp, RmsNormBothGainForms) {
    std::mt19937 rng(2);
    const MatD x = normal(rng, 3, 6), dy = normal(rng, 3, 6);
    const RowD w = normal(rng, 1, 6);
    for (const Gain gain : {Gain::W, Gain::OnePlusW}) {
        const NormGrad<double> g = rms_norm_vjp<double>(x, w, 1e-6, dy, gain);
        EXPECT_LT(
            relative_error(
                g.dx, fd_gradient([&](const MatD& t) { return rms_norm<double>(t, w, 1e-6, gain); },
                                  x, dy)),
            kFd);
        const MatD dw = fd_gradient(
            [&](const MatD& t) { return rms_norm<double>(x, RowD(t), 1e-6, gain); }, MatD(w), dy);
        EXPECT_LT(relative_error(MatD(g.dw), dw), kFd);
    }
}

TEST(BlocksVjp, FrozenNormsAreTheirLinearMaps) {
    std::mt19937 rng(3);
    const MatD x = normal(rng, 3, 5), y = normal(rng, 3, 5), dy = normal(rng, 3, 5);
    const RowD w = normal(rng, 1, 5), b = normal(rng, 1, 5);
    for (const FrozenNorm<double>& f :
         {freeze_layer_norm<double>(x, w, b, 1e-5), freeze_rms_norm<double>(x, w, 1e-6)}) {
        const MatD fd =
            fd_gradient([&](const MatD& t) { return apply_frozen<double>(f, t); }, y, dy);
        EXPECT_LT(relative_error(frozen_vjp<double>(f, dy), fd), kFd);
    }
    // At its own input the frozen norm is the norm.
    EXPECT_LT(relative_error(apply_frozen<double>(freeze_layer_norm<double>(x, w, b, 1e-5), x),
                             layer_norm<double>(x, w, b, 1e-5)),
              1e-14);
}

TEST(BlocksVjp, Activations) {
    std::mt19937 rng(4);
    const MatD x = normal(rng, 3, 8) * 2.0, dy = normal(rng, 3, 8);
    for (const Activation act :
         {Activation::GeluExact, Activation::GeluTanh, Activation::Silu, Activation::Relu}) {
        const MatD fd = fd_gradient(
            [&](const MatD& t) {
                MatD a = t;
                activate(a, act);
                return a;
            },
            x, dy);
        EXPECT_LT(relative_error(activate_vjp<double>(x, act, dy), fd), kFd) << int(act);
    }
}

TEST(BlocksVjp, GatedForms) {
    std::mt19937 rng(5);
    const MatD gate = normal(rng, 3, 6), up = normal(rng, 3, 6), dy = normal(rng, 3, 6);
    for (const Activation act : {Activation::Silu, Activation::GeluTanh, Activation::GeluExact}) {
        const GatedGrad<double> g = gated_vjp<double>(gate, up, act, dy);
        EXPECT_LT(relative_error(
                      g.dgate, fd_gradient([&](const MatD& t) { return gated<double>(t, up, act); },
                                           gate, dy)),
                  kFd);
        EXPECT_LT(relative_error(
                      g.dup, fd_gradient([&](const MatD& t) { return gated<double>(gate, t, act); },
                                         up, dy)),
                  kFd);
    }
}

TEST(BlocksVjp, ProjectionsEveryLayout) {
    std::mt19937 rng(6);
    const MatD x = normal(rng, 4, 5), w = normal(rng, 3, 5), dy = normal(rng, 4, 3);
    const RowD b = normal(rng, 1, 3);
    const LinearGrad<double> g = linear_vjp_all<double>(x, OutIn<MatD>{w}, dy);
    EXPECT_LT(
        relative_error(
            g.dx, fd_gradient([&](const MatD& t) { return linear<double>(t, OutIn<MatD>{w}, b); },
                              x, dy)),
        kFd);
    EXPECT_LT(
        relative_error(
            g.dw, fd_gradient([&](const MatD& t) { return linear<double>(x, OutIn<MatD>{t}, b); },
                              w, dy)),
        kFd);
    EXPECT_LT(
        relative_error(
            MatD(g.db),
            fd_gradient([&](const MatD& t) { return linear<double>(x, OutIn<MatD>{w}, RowD(t)); },
                        MatD(b), dy)),
        kFd);
    // Conv1D's [in, out] weight is the transpose: the same map and the same reverse.
    const MatD wt = w.transpose();
    EXPECT_LT(
        relative_error(linear<double>(x, InOut<MatD>{wt}, b), linear<double>(x, OutIn<MatD>{w}, b)),
        1e-15);
    EXPECT_LT(relative_error(linear_vjp<double>(dy, InOut<MatD>{wt}), g.dx), 1e-15);
}

TEST(BlocksVjp, FusedSplitsScatterBack) {
    std::mt19937 rng(7);
    const Index heads = 3, hd = 2;
    const MatD qkv = normal(rng, 2, 3 * heads * hd);
    for (const FusedQkv layout : {FusedQkv::Blocks, FusedQkv::PerHead}) {
        // Every column belongs to exactly one (part, head): the splits' reverses cover qkv once.
        MatD back = MatD::Zero(qkv.rows(), qkv.cols());
        for (const Part p : {Part::Q, Part::K, Part::V})
            for (Index h = 0; h < heads; ++h)
                fused_head_vjp<double>(back,
                                       fused_head<double>(qkv, layout, p, h, heads, heads, hd),
                                       layout, p, h, heads, heads, hd);
        EXPECT_EQ(back, qkv);
    }
    // GPT-NeoX's per-head layout: head 1's k is columns (1·3 + 1)·hd.
    EXPECT_EQ(fused_column(FusedQkv::PerHead, Part::K, 1, heads, heads, hd), 8);
    // GQA blocks: q of 4 heads, then k of 2, then v of 2.
    EXPECT_EQ(fused_column(FusedQkv::Blocks, Part::V, 1, 4, 2, hd), (4 + 2 + 1) * hd);
    const MatD gate_up = normal(rng, 2, 6);
    const auto [gate, up] = split_gate_up<double>(gate_up);
    EXPECT_EQ(split_gate_up_vjp<double>(gate, up), gate_up);
}

TEST(BlocksVjp, RotaryFullAndPartial) {
    std::mt19937 rng(8);
    for (const int rotary_dim : {8, 4}) {
        RopeSpec spec;
        spec.rotary_dim = rotary_dim;
        const RopeTable<double> t = rope_table<double>(rope_frequencies(spec), 3, 5);
        const MatD x = normal(rng, 5, 8), dy = normal(rng, 5, 8);
        MatD g = dy;
        rotate_half_vjp(g, t);
        const MatD fd = fd_gradient(
            [&](const MatD& v) {
                MatD r = v;
                rotate_half(r, t);
                return r;
            },
            x, dy);
        EXPECT_LT(relative_error(g, fd), kFd);
        // A rotation: its reverse undoes it.
        MatD r = x;
        rotate_half(r, t);
        rotate_half_vjp(r, t);
        EXPECT_LT(relative_error(r, x), 1e-14);
    }
}

HeadSpec<double> spec_with(double multiplier, double softcap, const MatD& bias,
                           const BoolMatrix& allowed) {
    HeadSpec<double> s;
    s.multiplier = multiplier;
    s.softcap = softcap;
    s.bias = bias;
    s.allowed = allowed;
    return s;
}

TEST(BlocksVjp, AttentionHeadEveryStage) {
    std::mt19937 rng(9);
    const Index n = 5, d = 4;
    const MatD q = normal(rng, n, d), k = normal(rng, n, d), v = normal(rng, n, 3),
               dout = normal(rng, n, 3);
    const MatD bias = normal(rng, n, n, 0.5);
    const BoolMatrix causal = build_mask(blocks_fd::causal_spec(), n, n);
    const BoolMatrix window = build_mask(causal_window(n, 2), n, n);
    HeadSpec<double> knocked = spec_with(0.5, 0.0, MatD(), causal);
    knocked.knocked = {{3, 1}, {4, 0}};
    // τ = 0.7 after a soft-cap and a bias (ScoreStages::tempering), with a knock-out.
    HeadSpec<double> tempered = spec_with(0.5, 1.2, bias, causal);
    tempered.tempering = 1.0 / 0.7;
    tempered.knocked = {{4, 2}};
    for (const HeadSpec<double>& s :
         {spec_with(0.5, 0.0, MatD(), BoolMatrix()), spec_with(0.5 / 0.7, 0.0, MatD(), causal),
          spec_with(1.0, 1.5, MatD(), window), spec_with(0.5, 0.0, bias, causal), knocked,
          tempered}) {
        const HeadForward<double> f = head_forward<double>(q, k, v, s);
        const HeadGrad<double> g = head_vjp<double>(q, k, v, s, f, dout);
        const auto out = [&](const MatD& qq, const MatD& kk, const MatD& vv) {
            return head_forward<double>(qq, kk, vv, s).out;
        };
        EXPECT_LT(
            relative_error(g.dq, fd_gradient([&](const MatD& t) { return out(t, k, v); }, q, dout)),
            kFd);
        EXPECT_LT(
            relative_error(g.dk, fd_gradient([&](const MatD& t) { return out(q, t, v); }, k, dout)),
            kFd);
        EXPECT_LT(
            relative_error(g.dv, fd_gradient([&](const MatD& t) { return out(q, k, t); }, v, dout)),
            kFd);
        if (s.bias.size()) {
            const MatD db = fd_gradient(
                [&](const MatD& t) {
                    HeadSpec<double> c = s;
                    c.bias = t;
                    return head_forward<double>(q, k, v, c).out;
                },
                s.bias, dout);
            EXPECT_LT(relative_error(g.dbias, db), kFd);
        }
    }
}

TEST(BlocksVjp, AttentionWeightsGradient) {
    // A loss reading the weights themselves (attention × gradient): ⟨DW, weights⟩.
    std::mt19937 rng(10);
    const MatD q = normal(rng, 4, 3), k = normal(rng, 4, 3), v = normal(rng, 4, 2);
    const MatD dw = normal(rng, 4, 4), zero = MatD::Zero(4, 2);
    const HeadSpec<double> s =
        spec_with(0.6, 0.0, MatD(), build_mask(blocks_fd::causal_spec(), 4, 4));
    const HeadGrad<double> g =
        head_vjp<double>(q, k, v, s, head_forward<double>(q, k, v, s), zero, &dw);
    EXPECT_LT(relative_error(
                  g.dq, fd_gradient(
                            [&](const MatD& t) { return head_forward<double>(t, k, v, s).weights; },
                            q, dw)),
              kFd);
}

TEST(BlocksVjp, GroupedQueryHeads) {
    std::mt19937 rng(11);
    const Index n = 4, hd = 3;
    HeadsSpec<double> spec{4, 2, hd, {}};
    for (int h = 0; h < 4; ++h)
        spec.head.push_back(spec_with(1.0 / std::sqrt(3.0), 0.0, MatD(),
                                      build_mask(blocks_fd::causal_spec(), n, n)));
    const MatD q = normal(rng, n, 4 * hd), k = normal(rng, n, 2 * hd), v = normal(rng, n, 2 * hd);
    const MatD dout = normal(rng, n, 4 * hd);
    MatD out;
    const auto f = heads_forward<double>(q, k, v, spec, out);
    const HeadsGrad<double> g = heads_vjp<double>(q, k, v, spec, f, dout);
    const auto run = [&](const MatD& qq, const MatD& kk, const MatD& vv) {
        MatD o;
        heads_forward<double>(qq, kk, vv, spec, o);
        return o;
    };
    EXPECT_LT(
        relative_error(g.dq, fd_gradient([&](const MatD& t) { return run(t, k, v); }, q, dout)),
        kFd);
    EXPECT_LT(
        relative_error(g.dk, fd_gradient([&](const MatD& t) { return run(q, t, v); }, k, dout)),
        kFd);
    EXPECT_LT(
        relative_error(g.dv, fd_gradient([&](const MatD& t) { return run(q, k, t); }, v, dout)),
        kFd);
}

TEST(BlocksVjp, EmbeddingTables) {
    std::mt19937 rng(12);
    const MatD tokens = normal(rng, 6, 4), positions = normal(rng, 5, 4), types = normal(rng, 2, 4);
    const std::vector<std::int32_t> ids{3, 1, 3, 5};
    const std::vector<int> tt{0, 0, 1, 1};
    const MatD dy = normal(rng, 3, 4);  // rows from first = 1
    EmbeddingSpec<MatD, double> spec{&tokens, &positions, &types, true, 1.7};
    const EmbeddingGrad<double> g = embed_vjp<double>(spec, ids, tt, 1, dy, 6, 5, 2);
    const auto with = [&](const MatD* tok, const MatD* pos, const MatD* typ) {
        EmbeddingSpec<MatD, double> s{tok, pos, typ, true, 1.7};
        return embed<double>(s, ids, tt, 1, 4);
    };
    EXPECT_LT(
        relative_error(
            g.dtokens,
            fd_gradient([&](const MatD& t) { return with(&t, &positions, &types); }, tokens, dy)),
        kFd);
    EXPECT_LT(relative_error(g.dpositions,
                             fd_gradient([&](const MatD& t) { return with(&tokens, &t, &types); },
                                         positions, dy)),
              kFd);
    EXPECT_LT(
        relative_error(
            g.dtypes,
            fd_gradient([&](const MatD& t) { return with(&tokens, &positions, &t); }, types, dy)),
        kFd);
    // Token 3 was read twice: its gradient is the sum of both rows' (× scale).
    EXPECT_NEAR(g.dtokens(3, 0), 1.7 * (dy(1, 0)), 1e-15);
}

TEST(BlocksVjp, ResidualWirings) {
    // Each wiring with a LayerNorm and a Linear-GELU sublayer, its reverse built from theirs.
    std::mt19937 rng(13);
    const Index d = 4;
    const MatD x = normal(rng, 3, d), dy = normal(rng, 3, d);
    const MatD w1 = normal(rng, d, d), w2 = normal(rng, d, d);
    const RowD g1 = normal(rng, 1, d), b1 = normal(rng, 1, d), g2 = normal(rng, 1, d);
    const auto norm1 = [&](const MatD& t) { return layer_norm<double>(t, g1, b1, 1e-5); };
    const auto norm2 = [&](const MatD& t) { return rms_norm<double>(t, g2, 1e-6); };
    const auto f = [&](const MatD& t) {
        MatD h = linear<double>(t, OutIn<MatD>{w1}, RowD());
        activate(h, Activation::GeluExact);
        return h;
    };
    const auto g = [&](const MatD& t) { return linear<double>(t, OutIn<MatD>{w2}, RowD()); };
    // Reverses at a given input.
    const auto norm1_vjp = [&](const MatD& at) {
        return [&, at](const MatD& d_) { return layer_norm_vjp<double>(at, g1, 1e-5, d_).dx; };
    };
    const auto norm2_vjp = [&](const MatD& at) {
        return [&, at](const MatD& d_) { return rms_norm_vjp<double>(at, g2, 1e-6, d_).dx; };
    };
    const auto f_vjp = [&](const MatD& at) {
        return [&, at](const MatD& d_) {
            const MatD pre = linear<double>(at, OutIn<MatD>{w1}, RowD());
            return linear_vjp<double>(activate_vjp<double>(pre, Activation::GeluExact, d_),
                                      OutIn<MatD>{w1});
        };
    };
    const auto g_vjp = [&](const MatD&) {
        return [&](const MatD& d_) { return linear_vjp<double>(d_, OutIn<MatD>{w2}); };
    };
    {
        const MatD got = pre_norm_vjp<double>(dy, norm1_vjp(x), f_vjp(norm1(x)));
        const MatD fd = fd_gradient(
            [&](const MatD& t) {
                MatD y = t;
                pre_norm<double>(y, norm1, f);
                return y;
            },
            x, dy);
        EXPECT_LT(relative_error(got, fd), kFd);
    }
    {
        const MatD got = post_norm_vjp<double>(dy, norm1_vjp(x + f(x)), f_vjp(x));
        const MatD fd = fd_gradient(
            [&](const MatD& t) {
                MatD y = t;
                post_norm<double>(y, norm1, f);
                return y;
            },
            x, dy);
        EXPECT_LT(relative_error(got, fd), kFd);
    }
    {
        const MatD got =
            sandwich_vjp<double>(dy, norm1_vjp(x), f_vjp(norm1(x)), norm2_vjp(f(norm1(x))));
        const MatD fd = fd_gradient(
            [&](const MatD& t) {
                MatD y = t;
                sandwich<double>(y, norm1, f, norm2);
                return y;
            },
            x, dy);
        EXPECT_LT(relative_error(got, fd), kFd);
    }
    {
        const MatD got =
            parallel_vjp<double>(dy, norm1_vjp(x), f_vjp(norm1(x)), norm2_vjp(x), g_vjp(x));
        const MatD fd = fd_gradient(
            [&](const MatD& t) {
                MatD y = t;
                parallel<double>(y, norm1, f, norm2, g);
                return y;
            },
            x, dy);
        EXPECT_LT(relative_error(got, fd), kFd);
    }
}

}  // namespace
