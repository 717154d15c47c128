// AttnScope core — the reverse pass through the described forward, and the gradient methods.
// GPL-3.0-or-later.
#include "attn/attribution/reverse_pass.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "attn/models/layer_description.hpp"
#include "attn/util/error.hpp"
#include "reverse_layer.hpp"

namespace attn::attrib {

namespace {

using detail::LayerContext;

/// The output block at one row: what its reverse needs.
struct OutputTape {
    Matrix x, pre, act;  ///< the residual row; the transform's output before and after act
    Matrix y;            ///< what the unembedding reads
    double raw = 0;      ///< the logit before the soft-cap
};

double output_forward(const model::OutputDescription& o, const Matrix& row, std::int32_t target,
                      OutputTape& t) {
    t.x = row;
    t.y = detail::norm_forward(o.final_norm, row);
    if (o.transform.w) {
        t.pre = detail::linear_forward(o.transform, t.y);
        t.act = t.pre;
        blocks::activate(t.act, o.transform_act);
        t.y = detail::norm_forward(o.transform_norm, t.act);
    }
    const Vector u = o.unembedding->row(target);
    double logit = double(t.y.row(0).dot(u.transpose()));
    if (o.bias) logit += double(o.bias->row(0)(target));
    t.raw = logit;
    // As the family's logits: the soft-cap in float32.
    if (o.softcap > 0.f) logit = double(o.softcap * std::tanh(float(logit) / o.softcap));
    return logit;
}

Matrix output_backward(const model::OutputDescription& o, const OutputTape& t,
                       std::int32_t target) {
    Matrix d = o.unembedding->row(target).transpose();
    if (o.softcap > 0.f) {
        const double th = std::tanh(t.raw / double(o.softcap));
        d *= float(1.0 - th * th);
    }
    if (o.transform.w) {
        d = detail::norm_backward(o.transform_norm, t.act, d);
        d = blocks::activate_vjp<float>(t.pre, o.transform_act, d);
        d = detail::linear_backward(o.transform, d);
        return detail::norm_backward(o.final_norm, t.x, d);
    }
    return detail::norm_backward(o.final_norm, t.x, d);
}

/// The context of layer L for ROWS stacking sequences of SEQUENCE rows; POSITION ≥ 0: the last
/// layer leaves only each sequence's row POSITION (all the logit reads).
LayerContext context_of(const model::Model& model, const model::LayerDescription& desc,
                        const model::RunControls& controls, int l, Index rows, Index sequence,
                        Index position) {
    LayerContext c = detail::layer_context(model, desc, controls, l);
    c.sequence = sequence;
    if (position >= 0 && l == model.info().layers - 1)
        for (Index at = position; at < rows; at += sequence)
            c.only.push_back(at);
    return c;
}

void check_position(const model::Model& model, const Matrix& x0, Index position) {
    if (x0.cols() != model.info().d_model || position < 0 || position >= x0.rows())
        throw ArgumentError("the reverse pass: position " + std::to_string(position) +
                            " or a width of " + std::to_string(x0.cols()) + " is not of this run");
}

void check_request(const model::Model& model, const Matrix& x0, Index position,
                   std::int32_t target) {
    check_position(model, x0, position);
    const model::ModelInfo& info = model.info();
    if (target < 0 || target >= info.vocab)
        throw ArgumentError("target token id " + std::to_string(target) +
                            " is outside the vocabulary of " + std::to_string(info.vocab));
}

}  // namespace

double described_logit(const model::Model& model, const Matrix& x0,
                       const model::RunControls& controls, Index position, std::int32_t target) {
    check_request(model, x0, position, target);
    Matrix x = x0;
    for (int l = 0; l < model.info().layers; ++l) {
        const model::LayerDescription desc = model.describe_layer(l);
        x = detail::layer_forward(
            context_of(model, desc, controls, l, x0.rows(), x0.rows(), position), x, nullptr);
    }
    OutputTape t;  // the last layer left row POSITION alone
    return output_forward(model.describe_output(), x.row(0), target, t);
}

struct LayerTapes {
    std::vector<std::unique_ptr<detail::LayerTape>> layers;  ///< null: run again on the way back
};

namespace {

/// described_forward of X, whose rows stack sequences of SEQUENCE rows; POSITION ≥ 0: the last
/// layer's output is each sequence's row POSITION alone.
DescribedForward forward_of(const model::Model& model, const Matrix& x,
                            const model::RunControls& controls, Index sequence, Index position,
                            Progress* progress, std::size_t keep_bytes) {
    const int L = model.info().layers;
    DescribedForward f{{x}, std::make_shared<LayerTapes>(), sequence, 0};
    for (int l = 0; l < L; ++l) {
        const model::LayerDescription desc = model.describe_layer(l);
        const LayerContext c = context_of(model, desc, controls, l, x.rows(), sequence, position);
        auto tape = std::make_unique<detail::LayerTape>();
        f.inputs.push_back(detail::layer_forward(c, f.inputs.back(), tape.get()));
        f.tape_bytes += detail::tape_bytes(*tape);
        f.tapes->layers.push_back(f.tape_bytes <= keep_bytes ? std::move(tape) : nullptr);
        report(progress, double(l + 1) / double(L));
    }
    return f;
}

/// The logit at POSITION of each stacked sequence and the gradient of their sum (each
/// sequence's rows get their own logit's gradient); AXG (optional) per layer, per sequence and
/// head.
struct StackedGradient {
    std::vector<double> logits;
    Matrix x_grad;
    std::vector<std::vector<Matrix>> axg;
};

StackedGradient stacked_gradient(const model::Model& model, DescribedForward forward,
                                 const model::RunControls& controls, Index position,
                                 std::int32_t target, bool attention_x_gradient,
                                 Progress* progress) {
    const int L = model.info().layers;
    std::vector<Matrix>& inputs = forward.inputs;
    if (inputs.size() != std::size_t(L) + 1 || !forward.tapes ||
        forward.tapes->layers.size() != std::size_t(L))
        throw ArgumentError("the reverse pass needs the described forward of every layer");
    const Index rows = inputs.front().rows(), n = forward.sequence > 0 ? forward.sequence : rows;
    check_request(model, inputs.front().topRows(n), position, target);
    const model::OutputDescription out = model.describe_output();
    StackedGradient g;
    // A forward that left only the rows the logit reads (forward_of's POSITION) has one a
    // sequence; its last layer is reversed from them.
    const bool only = inputs.back().rows() != rows;
    Matrix dx = Matrix::Zero(inputs.back().rows(), inputs.front().cols());
    for (Index at = position, s = 0; at < rows; at += n, ++s) {
        OutputTape ot;
        const Index row = only ? s : at;
        g.logits.push_back(output_forward(out, inputs.back().row(row), target, ot));
        dx.row(row) = output_backward(out, ot, target);
    }
    inputs.pop_back();
    // Reverse: each layer's tapes (kept, or its forward run again), then its reverse; past the
    // budget one layer's tape is alive at a time, never every layer's n × n weights.
    g.axg.resize(std::size_t(attention_x_gradient ? L : 0));
    for (int l = L - 1; l >= 0; --l) {
        const model::LayerDescription desc = model.describe_layer(l);
        const LayerContext c = context_of(model, desc, controls, l, rows, n, only ? position : -1);
        std::unique_ptr<detail::LayerTape> tape = std::move(forward.tapes->layers.back());
        forward.tapes->layers.pop_back();
        if (!tape) {
            tape = std::make_unique<detail::LayerTape>();
            detail::layer_forward(c, inputs.back(), tape.get());
        }
        inputs.pop_back();
        dx = detail::layer_backward(c, *tape, dx,
                                    attention_x_gradient ? &g.axg[std::size_t(l)] : nullptr);
        report(progress, double(L - l) / double(L));
    }
    g.x_grad = std::move(dx);
    report(progress, 1.0);
    return g;
}

}  // namespace

DescribedForward described_forward(const model::Model& model, const Matrix& x0,
                                   const model::RunControls& controls, Progress* progress,
                                   std::size_t keep_bytes) {
    return forward_of(model, x0, controls, x0.rows(), -1, progress, keep_bytes);
}

DescribedForward described_forward_at(const model::Model& model, const Matrix& x0,
                                      const model::RunControls& controls, Index position,
                                      Progress* progress) {
    check_position(model, x0, position);
    return forward_of(model, x0, controls, x0.rows(), position, progress, kKeptTapeBytes);
}

LogitGradient logit_gradient_from(const model::Model& model, DescribedForward forward,
                                  const model::RunControls& controls, Index position,
                                  std::int32_t target, bool attention_x_gradient,
                                  Progress* progress) {
    if (!forward.inputs.empty() && forward.sequence > 0 &&
        forward.sequence != forward.inputs.front().rows())
        throw ArgumentError("logit_gradient_from reads one sequence, not stacked rows");
    StackedGradient s = stacked_gradient(model, std::move(forward), controls, position, target,
                                         attention_x_gradient, progress);
    LogitGradient g;
    g.logit = s.logits.front();
    g.x0_grad = std::move(s.x_grad);
    for (auto& layer : s.axg)
        for (Matrix& m : layer)
            g.attention_x_gradient.push_back(std::move(m));
    return g;
}

LogitGradient logit_gradient(const model::Model& model, const Matrix& x0,
                             const model::RunControls& controls, Index position,
                             std::int32_t target, bool attention_x_gradient, Progress* progress) {
    check_request(model, x0, position, target);
    (void)model.describe_output();  // a family without one refuses before any work
    PartProgress forward(progress, 0.0, 0.4);
    DescribedForward f = described_forward_at(model, x0, controls, position, &forward);
    PartProgress reverse(progress, 0.4, 1.0);
    return logit_gradient_from(model, std::move(f), controls, position, target,
                               attention_x_gradient, &reverse);
}

GradientScores gradient_scores(const model::Model& model, const std::vector<std::int32_t>& ids,
                               const model::RunControls& controls, Index position,
                               std::int32_t target, const GradientAsk& ask, Progress* progress) {
    const Matrix x0 = ask.forward ? ask.forward->inputs.front() : model.embed(ids, 0);
    const Index n = x0.rows();
    const int steps = ask.integrated ? ask.steps : 0;
    if (ask.integrated && steps < 1)
        throw ArgumentError("integrated gradients need --steps of at least 1");
    const double parts = 1.0 + double(steps);
    GradientScores s;
    std::size_t step_bytes = 0;  // what one step's forward keeps: its every layer's tapes
    {
        PartProgress part(progress, 0.0, 1.0 / parts);
        check_request(model, x0, position, target);
        DescribedForward own;
        if (!ask.forward) {
            (void)model.describe_output();  // a family without one refuses before any work
            PartProgress forward(&part, 0.0, 0.4);
            own = described_forward_at(model, x0, controls, position, &forward);
        }
        DescribedForward& clean = ask.forward ? *ask.forward : own;
        step_bytes = clean.tape_bytes;
        PartProgress reverse(&part, ask.forward ? 0.0 : 0.4, 1.0);
        LogitGradient g = logit_gradient_from(model, std::move(clean), controls, position, target,
                                              ask.attention, &reverse);
        s.logit = g.logit;
        if (ask.gradient)
            for (Index i = 0; i < n; ++i) {
                s.saliency.push_back(double(g.x0_grad.row(i).cast<double>().norm()));
                s.input_x_gradient.push_back(
                    x0.row(i).cast<double>().dot(g.x0_grad.row(i).cast<double>()));
            }
        s.attention_x_gradient = std::move(g.attention_x_gradient);
    }
    if (!ask.integrated) return s;
    // Integrated gradients: baseline 0, the midpoint rule over M steps. The steps' rows are
    // stacked, as many as keep their tapes within the budget, so every projection reads its
    // weights once for all of them (one large product instead of one per step); each step still
    // attends only within itself.
    const int most = int(std::clamp<std::size_t>(
        ask.step_budget / std::max<std::size_t>(step_bytes, 1), 1, std::size_t(steps)));
    const int chunks = (steps + most - 1) / most;
    MatrixD sum = MatrixD::Zero(n, x0.cols());
    for (int c = 0; c < chunks; ++c) {
        // Even chunks (32 steps, at most 6 a chunk: 5, 5, 6, 5, 5, 6), never a small last one.
        const int k0 = 1 + steps * c / chunks, count = steps * (c + 1) / chunks - (k0 - 1);
        PartProgress part(progress, double(k0) / parts, double(k0 + count) / parts);
        Matrix stacked(Index(count) * n, x0.cols());
        for (int j = 0; j < count; ++j) {
            const float alpha = float((double(k0 + j) - 0.5) / double(steps));
            stacked.middleRows(Index(j) * n, n) = x0 * alpha;
        }
        PartProgress forward(&part, 0.0, 0.4);
        DescribedForward f = forward_of(model, stacked, controls, n, position, &forward,
                                        std::max(kKeptTapeBytes, ask.step_budget));
        PartProgress reverse(&part, 0.4, 1.0);
        const StackedGradient g =
            stacked_gradient(model, std::move(f), controls, position, target, false, &reverse);
        for (int j = 0; j < count; ++j)
            sum += g.x_grad.middleRows(Index(j) * n, n).cast<double>();
    }
    sum /= double(steps);
    double total = 0;
    for (Index i = 0; i < n; ++i) {
        s.integrated_gradients.push_back(x0.row(i).cast<double>().dot(sum.row(i)));
        total += s.integrated_gradients.back();
    }
    const double at_zero =
        described_logit(model, Matrix::Zero(n, x0.cols()), controls, position, target);
    s.ig_delta = total - (s.logit - at_zero);
    return s;
}

}  // namespace attn::attrib
