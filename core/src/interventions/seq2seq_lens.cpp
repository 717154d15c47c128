// AttnScope core — the logit lens of an encoder–decoder. GPL-3.0-or-later.
#include "attn/interventions/seq2seq_lens.hpp"

namespace attn::interv {

namespace {

/// Keeps the decoder's residual stream entering each layer and leaving the last.
class StreamCapture : public model::Hooks {
  public:
    explicit StreamCapture(int layers) : rows_(std::size_t(layers) + 1) {}
    void resid_pre(int layer, Index, Matrix& x) override { rows_[std::size_t(layer)] = x; }
    void resid_final(Index, Matrix& x) override { rows_.back() = x; }
    const std::vector<Matrix>& rows() const { return rows_; }

  private:
    std::vector<Matrix> rows_;
};

}  // namespace

std::vector<Matrix> seq2seq_lens_logits(const model::Seq2SeqModel& model,
                                        const std::vector<std::int32_t>& source,
                                        const std::vector<std::int32_t>& target,
                                        const model::Seq2SeqControls& controls) {
    StreamCapture capture(model.info().decoder_layers);
    model::Seq2SeqHooks hooks;
    hooks.decoder = &capture;
    const Matrix encoded = model::encode(model, source, controls, nullptr, &hooks);
    model::DecoderCache cache = model::start_decoder(model, encoded);
    model::decode(model, target, cache, controls, nullptr, nullptr, &hooks);
    std::vector<Matrix> out;
    for (const Matrix& x : capture.rows())
        out.push_back(model.logits(x));
    return out;
}

LensTable seq2seq_lens_table(const std::vector<Matrix>& logits) {
    LensTable t;
    t.layers = Index(logits.size());
    t.positions = logits.empty() ? 0 : logits[0].rows();
    t.cells.resize(std::size_t(t.layers * t.positions));
    for (Index l = 0; l < t.layers; ++l)
        for (Index p = 0; p < t.positions; ++p)
            t.cells[std::size_t(l * t.positions + p)] =
                top_tokens(logits[std::size_t(l)].row(p).transpose());
    return t;
}

}  // namespace attn::interv
