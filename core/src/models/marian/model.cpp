// AttnScope core — Marian's encoder–decoder (transformers' MarianMTModel): embeddings × √d
// (scale_embedding) plus sinusoidal positions in halves; post-norm layers (attention, add,
// LayerNorm; feed-forward, add, LayerNorm), a cross-attention block between them in the
// decoder; no final norm; logits = head · h + final_logits_bias. GPL-3.0-or-later.
#include <cmath>

#include "../family_parts.hpp"
#include "../seq2seq_attention.hpp"
#include "../seq2seq_stacks.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/models/marian/model.hpp"
#include "attn/models/seq2seq_description.hpp"
#include "attn/weights/weights.hpp"
#include "config.hpp"

namespace attn::model::marian {
namespace {

/// A LayerNorm's gain and bias.
struct MarianNorm {
    FloatTensor w, b;
    Matrix operator()(const Matrix& x) const { return blocks::layer_norm(x, w, b, 1e-5); }
};

struct MarianFeedForward {
    blocks::TensorLinear fc1, fc2;
};

struct MarianEncoderLayer {
    AttentionProjections att;
    MarianNorm att_norm, ffn_norm;
    MarianFeedForward ffn;
};

struct MarianDecoderLayer {
    AttentionProjections self, cross;
    MarianNorm self_norm, cross_norm, ffn_norm;
    MarianFeedForward ffn;
};

class MarianModel final : public Seq2SeqModel {
  public:
    explicit MarianModel(const std::string& dir) : c_(read_config(dir)), w_(dir) {
        const Seq2SeqInfo& i = c_.info;
        const Index d = i.d_model;
        if (c_.shared_embeddings) {
            const char* name = w_.find("model.shared.weight") ? "model.shared.weight"
                                                              : "model.encoder.embed_tokens.weight";
            src_embed_ = w_.get(name, i.source_vocab, d);
            tgt_embed_ = src_embed_;
        } else {
            src_embed_ = w_.get("model.encoder.embed_tokens.weight", i.source_vocab, d);
            tgt_embed_ = w_.get("model.decoder.embed_tokens.weight", i.vocab, d);
        }
        if (w_.find("lm_head.weight"))
            head_ = w_.get("lm_head.weight", i.vocab, d);
        else if (c_.tied)
            head_ = tgt_embed_;
        else
            head_ = read_output_head(w_, "lm_head.weight", i.vocab, d, "a Marian model");
        if (w_.find("final_logits_bias")) logits_bias_ = w_.get("final_logits_bias", 1, i.vocab);
        for (int l = 0; l < i.encoder_layers; ++l) {
            const std::string p = "model.encoder.layers." + std::to_string(l) + ".";
            enc_.push_back({attention(p + "self_attn."), norm(p + "self_attn_layer_norm"),
                            norm(p + "final_layer_norm"), ffn(p, c_.encoder_ffn)});
        }
        for (int l = 0; l < i.decoder_layers; ++l) {
            const std::string p = "model.decoder.layers." + std::to_string(l) + ".";
            dec_.push_back({attention(p + "self_attn."), attention(p + "encoder_attn."),
                            norm(p + "self_attn_layer_norm"), norm(p + "encoder_attn_layer_norm"),
                            norm(p + "final_layer_norm"), ffn(p, c_.decoder_ffn)});
        }
        c_.info.dtype = w_.dtype();
        embed_scale_ = c_.scale_embedding ? std::sqrt(float(d)) : 1.f;
    }

    const Seq2SeqInfo& info() const override { return c_.info; }

    Matrix embed_source(const std::vector<std::int32_t>& ids) const override {
        return embed(src_embed_, c_.info.source_vocab, ids, 0);
    }
    Matrix embed_target(const std::vector<std::int32_t>& ids, Index first) const override {
        return embed(tgt_embed_, c_.info.vocab, ids, first);
    }

    void encoder_layer(int l, Matrix& x, const HeadStep& step,
                       std::vector<Matrix>* weights) const override {
        const MarianEncoderLayer& L = enc_[std::size_t(l)];
        KeyValues kv;
        x = L.att_norm(x + self_attend(L.att, x, kv, c_.info.heads, c_.info.head_dim, step, nullptr,
                                       false, 0, weights));
        x = L.ffn_norm(x + feed_forward(L.ffn, x));
    }
    void encoder_end(Matrix&) const override {}

    KeyValues cross_keys(int l, const Matrix& encoded) const override {
        return project_keys(dec_[std::size_t(l)].cross, encoded, c_.info.heads, c_.info.head_dim);
    }

    void decoder_layer(int l, Matrix& x, Index first, KeyValues& self, const KeyValues& cross,
                       const HeadStep& self_step, const HeadStep& cross_step,
                       std::vector<Matrix>* self_w, std::vector<Matrix>* cross_w) const override {
        const MarianDecoderLayer& L = dec_[std::size_t(l)];
        const int h = c_.info.heads, hd = c_.info.head_dim;
        x = L.self_norm(
            x + self_attend(L.self, x, self, h, hd, self_step, nullptr, true, first, self_w));
        x = L.cross_norm(
            x + attend_keys(L.cross, x, cross, h, hd, cross_step, nullptr, false, first, cross_w));
        x = L.ffn_norm(x + feed_forward(L.ffn, x));
    }

    Seq2SeqDescription describe() const override;

    Matrix logits(const Matrix& x) const override {
        Matrix out = head_.mul_t(x);
        if (logits_bias_.rows()) out.rowwise() += logits_bias_.matrix().row(0);
        return out;
    }

  private:
    AttentionProjections attention(const std::string& p) const {
        const Index d = c_.info.d_model;
        return {
            read_linear(w_, p + "q_proj", d, d, true), read_linear(w_, p + "k_proj", d, d, true),
            read_linear(w_, p + "v_proj", d, d, true), read_linear(w_, p + "out_proj", d, d, true)};
    }
    MarianNorm norm(const std::string& p) const {
        return {w_.get(p + ".weight", 1, c_.info.d_model), w_.get(p + ".bias", 1, c_.info.d_model)};
    }
    MarianFeedForward ffn(const std::string& p, Index hidden) const {
        return {read_linear(w_, p + "fc1", hidden, c_.info.d_model, true),
                read_linear(w_, p + "fc2", c_.info.d_model, hidden, true)};
    }
    Matrix feed_forward(const MarianFeedForward& f, const Matrix& x) const {
        Matrix hidden = f.fc1(x);
        blocks::activate(hidden, c_.act);
        return f.fc2(hidden);
    }
    /// Token rows × the embedding scale, plus the positions (the scale leaves them alone).
    Matrix embed(const FloatTensor& table, int vocab, const std::vector<std::int32_t>& ids,
                 Index first) const {
        const Index n = Index(ids.size()), d = c_.info.d_model;
        if (first + n > c_.max_positions)
            throw ArgumentError("position " + std::to_string(first + n - 1) +
                                " is past the model's max_position_embeddings " +
                                std::to_string(c_.max_positions));
        Matrix x = blocks::sinusoidal_positions_halves<float>(first, n, d);
        for (Index r = 0; r < n; ++r) {
            const std::int32_t id = ids[std::size_t(r)];
            if (id < 0 || id >= vocab)
                throw ArgumentError("token id " + std::to_string(id) +
                                    " is outside the vocabulary of " + std::to_string(vocab));
            x.row(r) += blocks::table_row(table, id) * embed_scale_;
        }
        return x;
    }

    MarianConfig c_;
    Weights w_;
    FloatTensor src_embed_, tgt_embed_, head_, logits_bias_;
    std::vector<MarianEncoderLayer> enc_;
    std::vector<MarianDecoderLayer> dec_;
    float embed_scale_ = 1.f;
};

Seq2SeqDescription MarianModel::describe() const {
    const auto norm = [](const MarianNorm& n) {
        return NormOp{NormOp::Kind::Layer, &n.w, &n.b, 1e-5, blocks::Gain::W};
    };
    const auto mlp = [&](const MarianFeedForward& f) {
        MlpOp m;
        m.up = linear_op(f.fc1);
        m.down = linear_op(f.fc2);
        m.act = c_.act;
        return m;
    };
    Seq2SeqDescription d;
    describe_stacks(d, enc_, dec_, blocks::Residual::PostNorm, c_.info.heads, c_.info.head_dim,
                    norm, mlp);
    d.unembedding = &head_;
    if (logits_bias_.rows()) d.bias = &logits_bias_;
    return d;
}

}  // namespace

std::shared_ptr<const Seq2SeqModel> open_model(const std::string& dir) {
    return std::make_shared<MarianModel>(dir);
}

}  // namespace attn::model::marian
