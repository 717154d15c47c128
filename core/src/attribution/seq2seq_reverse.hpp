// AttnScope core — the reverse-mode pass through an encoder–decoder's forward, written once
// against its description (models/seq2seq_description.hpp): one target logit's gradient with
// respect to the encoder's and the decoder's input rows, cross-attention's keys and values
// carrying it back into the encoder. Internal to attribution. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "attn/models/seq2seq.hpp"
#include "attn/models/seq2seq_description.hpp"

namespace attn::attrib::detail {

/// Both stacks' forward of (XS, XT) with what the reverse reads (seq2seq_reverse.cpp).
struct Seq2SeqTapes;

/// The forward of the source rows XS and the target rows XT under CONTROLS, kept for its
/// reverse; every head's weights and its values through the output projection are readable.
class Seq2SeqForward {
  public:
    Seq2SeqForward(const model::Seq2SeqModel& model, const model::Seq2SeqDescription& desc,
                   const Matrix& xs, const Matrix& xt, const model::Seq2SeqControls& controls);
    ~Seq2SeqForward();
    Seq2SeqForward(Seq2SeqForward&&) noexcept;

    /// TARGET's logit at decoder position P.
    double logit(Index p, std::int32_t target) const;

    /// The logit's gradient: source rows, target rows, and (when asked) each head's
    /// A ⊙ ∂logit/∂A by part, layer by layer (L · H matrices each).
    struct Gradient {
        Matrix source, target;
        std::vector<Matrix> encoder_axg, decoder_axg, cross_axg;
    };
    Gradient gradient(Index p, std::int32_t target, bool attention_x_gradient) const;

    /// Each head's ‖α_ij · f(x_j)‖ of PART, layer by layer (L · H matrices), f(x_j) the head's
    /// value with its bias through the head's columns of the output projection.
    std::vector<Matrix> norm_based(model::Component part) const;

  private:
    const model::Seq2SeqDescription* desc_;
    std::unique_ptr<Seq2SeqTapes> t_;
};

}  // namespace attn::attrib::detail
