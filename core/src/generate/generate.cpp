// AttnScope core — generating tokens with any causal model family. GPL-3.0-or-later.
#include "attn/generate/generate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/models/vocabulary.hpp"
#include "attn/util/error.hpp"

namespace attn::gen {

std::vector<float> token_logprobs(const model::Model& model, const model::Run& run,
                                  std::size_t from) {
    const std::size_t n = run.ids.size();
    std::vector<float> out(n, std::numeric_limits<float>::quiet_NaN());
    if (run.inputs.empty()) return out;
    const Matrix& last = run.inputs.back();  // every position leaves the last layer here
    for (std::size_t i = std::max<std::size_t>(from, 1); i < n; ++i) {
        // Over the ids a text can stand for, as step chooses from.
        const Vector logits =
            model::without_padding(model.info(), model.logits(last.row(Index(i) - 1)));
        out[i] = log_softmax(logits)[std::size_t(run.ids[i])];
    }
    return out;
}

std::optional<std::int32_t> eos_id(const model::Tokenizer& tokenizer) {
    for (const char* name : {"<|endoftext|>", "</s>", "<|im_end|>", "<|end_of_text|>", "<eos>"})
        if (const auto id = tokenizer.token_id(name)) return id;
    return std::nullopt;
}

Generation start(const model::Model& model, const std::vector<std::int32_t>& prompt,
                 const model::RunControls& controls, Progress* progress) {
    const model::ModelInfo& info = model.info();
    if (!info.causal)
        throw ArgumentError(info.display +
                            " sees the whole sentence at once (it is not causal) "
                            "and does not generate text");
    Generation g;
    g.ids = prompt;
    g.prompt = prompt.size();
    g.run =
        std::make_shared<const model::Run>(model::run(model, prompt, controls, nullptr, progress));
    g.logprobs = token_logprobs(model, *g.run);
    return g;
}

Step step(const model::Model& model, Generation& g, const GenerateOptions& options,
          Progress* progress) {
    if (!g.run) throw ArgumentError("the generation has not started");
    const model::ModelInfo& info = model.info();
    if (info.max_positions > 0 && Index(g.ids.size()) >= info.max_positions)
        throw ArgumentError("the sequence fills the model's " + std::to_string(info.max_positions) +
                            " positions");
    check_sampling(options.sampling);
    // A control changed since the last step: this step's choice already sees its effect.
    std::shared_ptr<const model::Run> current = g.run;
    if (!(current->controls == options.controls))
        current = std::make_shared<const model::Run>(
            model::run(model, g.ids, options.controls, nullptr, progress));
    Step s;
    s.index = int(g.choices.size());
    // Padding ids (embedding rows past the tokenizer's vocabulary) are never chosen or listed.
    s.choice = choose(model::without_padding(info, current->logits), options.sampling,
                      Index(g.ids.size()));
    std::vector<std::int32_t> ids = g.ids;
    ids.push_back(s.choice.id);
    // The key–value cache: every row of ids but the new one comes from CURRENT.
    s.run = std::make_shared<const model::Run>(
        model::run(model, ids, options.controls, nullptr, progress, current.get()));
    // Committed only now, so a cancelled or failed step leaves G as it was.
    if (current != g.run) {
        std::vector<float> lp = token_logprobs(model, *current);
        g.logprobs = std::move(lp);
    }
    g.ids = std::move(ids);
    g.logprobs.push_back(s.choice.logprob);
    g.choices.push_back(s.choice);
    g.run = s.run;
    return s;
}

std::optional<StopReason> stop_after(const model::Model& model, const Generation& g,
                                     const GenerateOptions& options,
                                     std::optional<std::int32_t> eos) {
    if (g.choices.empty()) {
        if (options.tokens <= 0) return StopReason::Tokens;
    } else {
        const std::int32_t id = g.choices.back().id;
        if (options.stop_at_eos && eos && id == *eos) return StopReason::Eos;
        if (std::find(options.stop_ids.begin(), options.stop_ids.end(), id) !=
            options.stop_ids.end())
            return StopReason::StopId;
        if (int(g.choices.size()) >= options.tokens) return StopReason::Tokens;
    }
    const int max = model.info().max_positions;
    if (max > 0 && Index(g.ids.size()) >= max) return StopReason::Positions;
    return std::nullopt;
}

Generation generate(const model::Model& model, const model::Tokenizer& tokenizer,
                    const std::vector<std::int32_t>& prompt, const GenerateOptions& options,
                    Progress* progress, const std::function<void(const Step&)>& on_step) {
    check_sampling(options.sampling);
    if (options.tokens < 0)
        throw ArgumentError("the number of tokens to generate (" + std::to_string(options.tokens) +
                            ") must be ≥ 0");
    const std::optional<std::int32_t> eos = eos_id(tokenizer);
    // The prompt's run and each step take an equal share of the progress.
    const double share = 1.0 / double(options.tokens + 1);
    PartProgress first(progress, 0.0, share);
    Generation g = start(model, prompt, options.controls, &first);
    try {
        for (;;) {
            if (const auto stop = stop_after(model, g, options, eos)) {
                g.stop = *stop;
                break;
            }
            const double done = double(g.choices.size() + 1) * share;
            PartProgress part(progress, done, done + share);
            const Step s = step(model, g, options, &part);
            if (on_step) on_step(s);
        }
    } catch (const Cancelled&) {
        g.stop = StopReason::Cancelled;  // the tokens made so far are the result
    }
    return g;
}

}  // namespace attn::gen
