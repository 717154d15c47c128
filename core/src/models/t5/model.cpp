// AttnScope core — T5's encoder–decoder (transformers' T5ForConditionalGeneration): token rows
// (no positions, no scale); pre-norm layers with T5's RMS norm (no mean, no bias); every
// self-attention adds the relative position bias of its stack's first layer (bidirectional
// buckets in the encoder, causal in the decoder) to unscaled scores; cross-attention adds none;
// ReLU or gated feed-forward; final norms; a tied head reads hidden × d_model^−½.
// GPL-3.0-or-later.
#include <algorithm>
#include <cmath>

#include "../family_parts.hpp"
#include "../seq2seq_attention.hpp"
#include "../seq2seq_stacks.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/models/seq2seq_description.hpp"
#include "attn/models/t5/model.hpp"
#include "attn/weights/weights.hpp"
#include "config.hpp"

namespace attn::model::t5 {

int relative_bucket(int relative, bool bidirectional, int buckets, int max_distance) {
    int bucket = 0;
    int n = buckets;
    if (bidirectional) {
        n /= 2;
        if (relative > 0) bucket += n;
        relative = std::abs(relative);
    } else {
        relative = -std::min(relative, 0);
    }
    const int max_exact = n / 2;
    if (relative < max_exact) return bucket + relative;
    // Logarithmic buckets up to max_distance, in float32 and truncated as transformers does.
    const float scaled = std::log(float(relative) / float(max_exact)) /
                         float(std::log(double(max_distance) / double(max_exact))) *
                         float(n - max_exact);
    return bucket + std::min(max_exact + int(scaled), n - 1);
}

namespace {

struct T5FeedForward {
    FloatTensor wi, wi_1, wo;  ///< wi is wi_0 when gated
};

struct T5EncoderLayer {
    AttentionProjections att;
    FloatTensor att_norm, ffn_norm;
    T5FeedForward ffn;
};

struct T5DecoderLayer {
    AttentionProjections self, cross;
    FloatTensor self_norm, cross_norm, ffn_norm;
    T5FeedForward ffn;
};

class T5Model final : public Seq2SeqModel {
  public:
    explicit T5Model(const std::string& dir) : c_(read_config(dir)), w_(dir) {
        const Seq2SeqInfo& i = c_.info;
        const Index d = i.d_model;
        embed_ = w_.get(w_.find("shared.weight") ? "shared.weight" : "encoder.embed_tokens.weight",
                        i.vocab, d);
        head_ = c_.tied ? embed_ : read_output_head(w_, "lm_head.weight", i.vocab, d, "a T5 model");
        enc_bias_ = w_.get("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                           c_.buckets, i.heads);
        dec_bias_ = w_.get("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                           c_.buckets, i.heads);
        for (int l = 0; l < i.encoder_layers; ++l) {
            const std::string p = "encoder.block." + std::to_string(l) + ".layer.";
            enc_.push_back({attention(p + "0.SelfAttention."), norm(p + "0.layer_norm"),
                            norm(p + "1.layer_norm"), ffn(p + "1.DenseReluDense.")});
        }
        for (int l = 0; l < i.decoder_layers; ++l) {
            const std::string p = "decoder.block." + std::to_string(l) + ".layer.";
            dec_.push_back({attention(p + "0.SelfAttention."), attention(p + "1.EncDecAttention."),
                            norm(p + "0.layer_norm"), norm(p + "1.layer_norm"),
                            norm(p + "2.layer_norm"), ffn(p + "2.DenseReluDense.")});
        }
        enc_final_ = norm("encoder.final_layer_norm");
        dec_final_ = norm("decoder.final_layer_norm");
        c_.info.dtype = w_.dtype();
    }

    const Seq2SeqInfo& info() const override { return c_.info; }

    Matrix embed_source(const std::vector<std::int32_t>& ids) const override { return embed(ids); }
    Matrix embed_target(const std::vector<std::int32_t>& ids, Index) const override {
        return embed(ids);
    }

    void encoder_layer(int l, Matrix& x, const HeadStep& step,
                       std::vector<Matrix>* weights) const override {
        const T5EncoderLayer& L = enc_[std::size_t(l)];
        const std::vector<Matrix> bias = position_bias(enc_bias_, true, 0, x.rows(), x.rows());
        KeyValues kv;
        x += self_attend(L.att, rms(x, L.att_norm), kv, c_.info.heads, c_.info.head_dim, step,
                         &bias, false, 0, weights);
        x += feed_forward(L.ffn, rms(x, L.ffn_norm));
    }
    void encoder_end(Matrix& x) const override { x = rms(x, enc_final_); }

    KeyValues cross_keys(int l, const Matrix& encoded) const override {
        return project_keys(dec_[std::size_t(l)].cross, encoded, c_.info.heads, c_.info.head_dim);
    }

    void decoder_layer(int l, Matrix& x, Index first, KeyValues& self, const KeyValues& cross,
                       const HeadStep& self_step, const HeadStep& cross_step,
                       std::vector<Matrix>* self_w, std::vector<Matrix>* cross_w) const override {
        const T5DecoderLayer& L = dec_[std::size_t(l)];
        const int h = c_.info.heads, hd = c_.info.head_dim;
        const std::vector<Matrix> bias =
            position_bias(dec_bias_, false, first, x.rows(), first + x.rows());
        x += self_attend(L.self, rms(x, L.self_norm), self, h, hd, self_step, &bias, true, first,
                         self_w);
        x += attend_keys(L.cross, rms(x, L.cross_norm), cross, h, hd, cross_step, nullptr, false,
                         first, cross_w);
        x += feed_forward(L.ffn, rms(x, L.ffn_norm));
    }

    Seq2SeqDescription describe() const override;

    Matrix logits(const Matrix& x) const override {
        Matrix y = rms(x, dec_final_);
        // The tied head reads the hidden rows rescaled by d_model^−½ (Mesh TensorFlow's T5).
        if (c_.tied) y *= 1.f / std::sqrt(float(c_.info.d_model));
        return head_.mul_t(y);
    }

  private:
    AttentionProjections attention(const std::string& p) const {
        const Index d = c_.info.d_model, inner = Index(c_.info.heads) * c_.info.head_dim;
        return {
            read_linear(w_, p + "q", inner, d, false), read_linear(w_, p + "k", inner, d, false),
            read_linear(w_, p + "v", inner, d, false), read_linear(w_, p + "o", d, inner, false)};
    }
    FloatTensor norm(const std::string& p) const {
        return w_.get(p + ".weight", 1, c_.info.d_model);
    }
    T5FeedForward ffn(const std::string& p) const {
        const Index d = c_.info.d_model, f = c_.d_ff;
        if (c_.gated)
            return {w_.get(p + "wi_0.weight", f, d), w_.get(p + "wi_1.weight", f, d),
                    w_.get(p + "wo.weight", d, f)};
        return {w_.get(p + "wi.weight", f, d), FloatTensor(), w_.get(p + "wo.weight", d, f)};
    }
    Matrix rms(const Matrix& x, const FloatTensor& w) const {
        return blocks::rms_norm(x, w, c_.eps);
    }
    Matrix feed_forward(const T5FeedForward& f, const Matrix& x) const {
        Matrix hidden = f.wi.mul_t(x);
        if (c_.gated)
            hidden = blocks::gated<float>(std::move(hidden), f.wi_1.mul_t(x), c_.act);
        else
            blocks::activate(hidden, c_.act);
        return f.wo.mul_t(hidden);
    }
    Matrix embed(const std::vector<std::int32_t>& ids) const {
        Matrix x(Index(ids.size()), c_.info.d_model);
        for (std::size_t r = 0; r < ids.size(); ++r) {
            if (ids[r] < 0 || ids[r] >= c_.info.vocab)
                throw ArgumentError("token id " + std::to_string(ids[r]) +
                                    " is outside the vocabulary of " +
                                    std::to_string(c_.info.vocab));
            x.row(Index(r)) = blocks::table_row(embed_, ids[r]);
        }
        return x;
    }
    /// Each head's bias for queries at positions [FIRST, FIRST + ROWS) and keys [0, KEYS).
    std::vector<Matrix> position_bias(const FloatTensor& table, bool bidirectional, Index first,
                                      Index rows, Index keys) const {
        const Matrix t = table.block(0, 0, table.rows(), table.cols());
        std::vector<Matrix> bias(std::size_t(c_.info.heads), Matrix(rows, keys));
        for (Index i = 0; i < rows; ++i)
            for (Index j = 0; j < keys; ++j) {
                const int b = relative_bucket(int(j - (first + i)), bidirectional, c_.buckets,
                                              c_.max_distance);
                for (int h = 0; h < c_.info.heads; ++h)
                    bias[std::size_t(h)](i, j) = t(b, h);
            }
        return bias;
    }

    T5Config c_;
    Weights w_;
    FloatTensor embed_, head_, enc_bias_, dec_bias_, enc_final_, dec_final_;
    std::vector<T5EncoderLayer> enc_;
    std::vector<T5DecoderLayer> dec_;
};

Seq2SeqDescription T5Model::describe() const {
    const auto norm = [&](const FloatTensor& w) { return rms_op(w, c_.eps); };
    // Gated: act(wi_0 x) ⊙ wi_1 x, the description's act(gate(x)) ⊙ up(x).
    const auto mlp = [&](const T5FeedForward& f) {
        MlpOp m;
        m.up = LinearOp{c_.gated ? &f.wi_1 : &f.wi, nullptr, false};
        if (c_.gated) m.gate = LinearOp{&f.wi, nullptr, false};
        m.down = LinearOp{&f.wo, nullptr, false};
        m.act = c_.act;
        return m;
    };
    Seq2SeqDescription d;
    describe_stacks(d, enc_, dec_, blocks::Residual::PreNorm, c_.info.heads, c_.info.head_dim, norm,
                    mlp);
    d.encoder_final = norm(enc_final_);
    d.decoder_final = norm(dec_final_);
    d.unembedding = &head_;
    if (c_.tied) d.head_scale = 1.f / std::sqrt(float(c_.info.d_model));
    // Cross-attention has no position bias.
    d.score_bias = [this](Component part, Index rows, Index keys) {
        if (part == Component::Cross) return std::vector<Matrix>();
        const bool encoder = part == Component::Encoder;
        return position_bias(encoder ? enc_bias_ : dec_bias_, encoder, 0, rows, keys);
    };
    return d;
}

}  // namespace

std::shared_ptr<const Seq2SeqModel> open_model(const std::string& dir) {
    return std::make_shared<T5Model>(dir);
}

}  // namespace attn::model::t5
