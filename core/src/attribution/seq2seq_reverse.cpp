// AttnScope core — the reverse-mode pass through an encoder–decoder: both stacks run forward
// keeping each block's input, then the blocks' vector–Jacobian products chained back from the
// logit, the decoder first; each cross-attention's key and value gradients are summed into the
// encoder's output. GPL-3.0-or-later.
#include "seq2seq_reverse.hpp"

#include <memory>

#include "attn/blocks/attention.hpp"
#include "reverse_layer.hpp"

namespace attn::attrib::detail {

namespace {

using model::AttentionOp;
using model::Component;
using model::NormOp;

/// What one attention block's reverse needs: the merged projections and each head's forward.
struct AttnTape {
    Matrix q, k, v;
    blocks::HeadsSpec<float> spec;
    std::vector<blocks::HeadForward<float>> f;
    std::vector<char> ablated;  ///< per head, or empty
};

/// A block wired into the residual stream: its input x and, post-norm, the sum before the norm.
struct SubTape {
    Matrix x, u;
};

struct StackLayerTapes {
    SubTape self_sub, cross_sub, ffn_sub;
    AttnTape self, cross;
    LayerTape ffn;
};

bool ablated(const AttnTape& t, Index h) {
    return !t.ablated.empty() && t.ablated[std::size_t(h)];
}

/// The heads' score stages: the step's multiplier, PART's position bias (one matrix per head,
/// or null), causal or not. The encoder–decoders' forward (model::attend_keys) scales, adds
/// the bias and takes the softmax: no soft-cap, no temperature.
blocks::HeadsSpec<float> heads_spec(const AttentionOp& a, const model::HeadStep& step,
                                    const std::shared_ptr<const PositionBias>& bias, bool causal,
                                    Index nq, Index nk) {
    blocks::HeadsSpec<float> s{a.heads, a.heads, a.head_dim, {}};
    BoolMatrix allowed;
    if (causal) {
        allowed = BoolMatrix::Constant(nq, nk, false);
        for (Index i = 0; i < nq; ++i)
            allowed.row(i).head(std::min(nk, i + 1)).setConstant(true);
    }
    ScoreStages st;
    st.multiplier = step.multiplier;
    st.bias = bias;
    for (int h = 0; h < a.heads; ++h) {
        st.bias_head = h;
        blocks::HeadSpec<float> one = blocks::HeadSpec<float>::from(st, nq, nk);
        one.allowed = allowed;
        s.head.push_back(std::move(one));
    }
    return s;
}

Matrix attention_forward(const AttentionOp& a, const Matrix& h, const Matrix& kv_in,
                         blocks::HeadsSpec<float> spec, const model::HeadStep& step, AttnTape& t) {
    t.q = linear_forward(a.q, h);
    t.k = linear_forward(a.k, kv_in);
    t.v = linear_forward(a.v, kv_in);
    t.spec = std::move(spec);
    t.ablated = step.ablated;
    Matrix z;
    t.f = blocks::heads_forward<float>(t.q, t.k, t.v, t.spec, z);
    for (Index hh = 0; hh < a.heads; ++hh)
        if (ablated(t, hh)) z.middleCols(hh * a.head_dim, a.head_dim).setZero();
    return linear_forward(a.o, z);
}

/// The gradients of the queries' input and of the keys' and values' input.
struct AttnGrad {
    Matrix dh, dkv;
};

AttnGrad attention_backward(const AttentionOp& a, const AttnTape& t, const Matrix& dy,
                            std::vector<Matrix>* axg) {
    Matrix dz = linear_backward(a.o, dy);
    for (Index h = 0; h < a.heads; ++h)
        if (ablated(t, h)) dz.middleCols(h * a.head_dim, a.head_dim).setZero();
    const blocks::HeadsGrad<float> g = blocks::heads_vjp<float>(t.q, t.k, t.v, t.spec, t.f, dz);
    if (axg)
        for (std::size_t h = 0; h < t.f.size(); ++h)
            axg->push_back(t.f[h].weights.cwiseProduct(g.dweights[h]));
    return {linear_backward(a.q, g.dq), linear_backward(a.k, g.dk) + linear_backward(a.v, g.dv)};
}

/// X through block F wired as R says (pre-norm: x + F(norm(x)); post-norm: norm(x + F(x))).
template <class F>
Matrix sub_forward(blocks::Residual r, const NormOp& norm, const Matrix& x, SubTape& t, F f) {
    t.x = x;
    if (r == blocks::Residual::PostNorm) {
        t.u = x + f(x);
        return norm_forward(norm, t.u);
    }
    return x + f(norm_forward(norm, x));
}

/// sub_forward's reverse; BACK maps the gradient of F's output to that of F's input.
template <class B>
Matrix sub_backward(blocks::Residual r, const NormOp& norm, const SubTape& t, const Matrix& dy,
                    B back) {
    if (r == blocks::Residual::PostNorm) {
        const Matrix du = norm_backward(norm, t.u, dy);
        return du + back(du);
    }
    return dy + norm_backward(norm, t.x, back(dy));
}

/// The reverse of a layer's feed-forward block, and of its self-attention block (its queries,
/// keys and values all read the block's input).
Matrix ffn_backward(const model::LayerDescription& b, const StackLayerTapes& t, const Matrix& dx) {
    return sub_backward(b.residual, b.norm2, t.ffn_sub, dx,
                        [&](const Matrix& dy) { return feed_backward(b, t.ffn, dy); });
}

Matrix self_backward(const model::LayerDescription& b, const StackLayerTapes& t, const Matrix& dx,
                     std::vector<Matrix>* axg) {
    return sub_backward(b.residual, b.norm1, t.self_sub, dx, [&](const Matrix& dy) {
        const AttnGrad a = attention_backward(b.attention, t.self, dy, axg);
        return Matrix(a.dh + a.dkv);
    });
}

/// PART's position bias over ROWS queries and KEYS keys, one matrix per head (null: none).
std::shared_ptr<const PositionBias> bias_of(const model::Seq2SeqDescription& d, Component part,
                                            Index rows, Index keys) {
    if (!d.score_bias) return nullptr;
    auto bias = std::make_shared<PositionBias>();
    bias->per_head = d.score_bias(part, rows, keys);
    if (bias->per_head.empty()) return nullptr;
    return bias;
}

}  // namespace

struct Seq2SeqTapes {
    std::vector<StackLayerTapes> encoder, decoder;
    Matrix encoder_last;  ///< the encoder's last layer's output, before its final norm
    Matrix decoder_last;  ///< the decoder's last layer's output, before its final norm
};

Seq2SeqForward::Seq2SeqForward(const model::Seq2SeqModel& model,
                               const model::Seq2SeqDescription& desc, const Matrix& xs,
                               const Matrix& xt, const model::Seq2SeqControls& controls)
    : desc_(&desc), t_(std::make_unique<Seq2SeqTapes>()) {
    const model::Seq2SeqInfo& info = model.info();
    model::check_heads(info, controls);
    const Index ns = xs.rows(), nt = xt.rows();
    Matrix x = xs;
    const std::shared_ptr<const PositionBias> enc_bias = bias_of(desc, Component::Encoder, ns, ns);
    t_->encoder.resize(desc.encoder.size());
    for (std::size_t l = 0; l < desc.encoder.size(); ++l) {
        const model::LayerDescription& b = desc.encoder[l].block;
        StackLayerTapes& t = t_->encoder[l];
        const model::HeadStep step = model::head_step(info, controls, Component::Encoder, int(l));
        x = sub_forward(b.residual, b.norm1, x, t.self_sub, [&](const Matrix& h) {
            return attention_forward(b.attention, h, h,
                                     heads_spec(b.attention, step, enc_bias, false, ns, ns), step,
                                     t.self);
        });
        x = sub_forward(b.residual, b.norm2, x, t.ffn_sub,
                        [&](const Matrix& h) { return feed_forward(b, h, t.ffn); });
    }
    t_->encoder_last = x;
    const Matrix encoded = norm_forward(desc.encoder_final, x);
    x = xt;
    const std::shared_ptr<const PositionBias> dec_bias = bias_of(desc, Component::Decoder, nt, nt);
    t_->decoder.resize(desc.decoder.size());
    for (std::size_t l = 0; l < desc.decoder.size(); ++l) {
        const model::Seq2SeqLayerDescription& L = desc.decoder[l];
        const model::LayerDescription& b = L.block;
        StackLayerTapes& t = t_->decoder[l];
        const model::HeadStep self = model::head_step(info, controls, Component::Decoder, int(l));
        const model::HeadStep cross = model::head_step(info, controls, Component::Cross, int(l));
        x = sub_forward(b.residual, b.norm1, x, t.self_sub, [&](const Matrix& h) {
            return attention_forward(b.attention, h, h,
                                     heads_spec(b.attention, self, dec_bias, true, nt, nt), self,
                                     t.self);
        });
        x = sub_forward(b.residual, L.cross_norm, x, t.cross_sub, [&](const Matrix& h) {
            return attention_forward(L.cross, h, encoded,
                                     heads_spec(L.cross, cross, nullptr, false, nt, ns), cross,
                                     t.cross);
        });
        x = sub_forward(b.residual, b.norm2, x, t.ffn_sub,
                        [&](const Matrix& h) { return feed_forward(b, h, t.ffn); });
    }
    t_->decoder_last = std::move(x);
}

Seq2SeqForward::~Seq2SeqForward() = default;
Seq2SeqForward::Seq2SeqForward(Seq2SeqForward&&) noexcept = default;

double Seq2SeqForward::logit(Index p, std::int32_t target) const {
    const Matrix row = t_->decoder_last.row(p);
    const Matrix y = norm_forward(desc_->decoder_final, row);
    const Index d = y.cols();
    const Matrix u = desc_->unembedding->block(target, 0, 1, d);
    double logit = double(desc_->head_scale) * u.cast<double>().row(0).dot(y.cast<double>().row(0));
    if (desc_->bias) logit += double(desc_->bias->block(0, target, 1, 1)(0, 0));
    return logit;
}

Seq2SeqForward::Gradient Seq2SeqForward::gradient(Index p, std::int32_t target,
                                                  bool attention_x_gradient) const {
    const model::Seq2SeqDescription& desc = *desc_;
    const Index d = t_->decoder_last.cols();
    Matrix dx = Matrix::Zero(t_->decoder_last.rows(), d);
    const Matrix row = t_->decoder_last.row(p);
    dx.row(p) = norm_backward(desc.decoder_final, row,
                              desc.unembedding->block(target, 0, 1, d) * desc.head_scale);
    Matrix dencoded = Matrix::Zero(t_->encoder_last.rows(), d);
    Gradient g;
    // Per layer, gathered from the last layer back, then put in layer order.
    std::vector<std::vector<Matrix>> dec_axg(desc.decoder.size()), cross_axg(desc.decoder.size()),
        enc_axg(desc.encoder.size());
    for (std::size_t l = desc.decoder.size(); l-- > 0;) {
        const model::Seq2SeqLayerDescription& L = desc.decoder[l];
        const model::LayerDescription& b = L.block;
        const StackLayerTapes& t = t_->decoder[l];
        dx = ffn_backward(b, t, dx);
        dx = sub_backward(b.residual, L.cross_norm, t.cross_sub, dx, [&](const Matrix& dy) {
            AttnGrad a = attention_backward(L.cross, t.cross, dy,
                                            attention_x_gradient ? &cross_axg[l] : nullptr);
            dencoded += a.dkv;
            return a.dh;
        });
        dx = self_backward(b, t, dx, attention_x_gradient ? &dec_axg[l] : nullptr);
    }
    g.target = std::move(dx);
    dx = norm_backward(desc.encoder_final, t_->encoder_last, dencoded);
    for (std::size_t l = desc.encoder.size(); l-- > 0;) {
        const model::LayerDescription& b = desc.encoder[l].block;
        const StackLayerTapes& t = t_->encoder[l];
        dx = ffn_backward(b, t, dx);
        dx = self_backward(b, t, dx, attention_x_gradient ? &enc_axg[l] : nullptr);
    }
    g.source = std::move(dx);
    const auto flatten = [](std::vector<std::vector<Matrix>>& layers, std::vector<Matrix>& out) {
        for (std::vector<Matrix>& heads : layers)
            for (Matrix& m : heads)
                out.push_back(std::move(m));
    };
    flatten(enc_axg, g.encoder_axg);
    flatten(dec_axg, g.decoder_axg);
    flatten(cross_axg, g.cross_axg);
    return g;
}

std::vector<Matrix> Seq2SeqForward::norm_based(Component part) const {
    const bool encoder = part == Component::Encoder;
    const std::vector<StackLayerTapes>& tapes = encoder ? t_->encoder : t_->decoder;
    std::vector<Matrix> out;
    for (std::size_t l = 0; l < tapes.size(); ++l) {
        const AttentionOp& a = part == Component::Cross ? desc_->decoder[l].cross
                               : encoder                ? desc_->encoder[l].block.attention
                                                        : desc_->decoder[l].block.attention;
        const AttnTape& t = part == Component::Cross ? tapes[l].cross : tapes[l].self;
        const Index hd = a.head_dim, d = a.o.w->rows();
        for (Index h = 0; h < a.heads; ++h) {
            Matrix m = t.f[std::size_t(h)].weights;
            if (ablated(t, h)) {
                m.setZero();  // its output reaches nothing
            } else {
                const Matrix f =
                    t.v.middleCols(h * hd, hd) * a.o.w->block(0, h * hd, d, hd).transpose();
                // ‖α f‖ = α ‖f‖: the weights are never negative.
                const Eigen::RowVectorXf norms = f.rowwise().norm().transpose();
                m.array().rowwise() *= norms.array();
            }
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace attn::attrib::detail
