// AttnScope core — generating tokens with any causal model family, the earlier positions' rows
// reused at every step (the key–value cache). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "attn/generate/sampling.hpp"
#include "attn/models/run.hpp"
#include "attn/util/progress.hpp"

namespace attn::gen {

/// What to generate and how.
struct GenerateOptions {
    int tokens = 16;                     ///< at most this many new tokens
    std::vector<std::int32_t> stop_ids;  ///< stop after one of these (besides the EOS token)
    bool stop_at_eos = true;             ///< stop after the tokenizer's end-of-text token
    Sampling sampling;
    model::RunControls controls;  ///< scaling, τ, mask, interventions: applied at every step
};

/// Why a generation ended.
enum class StopReason { Tokens, Eos, StopId, Positions, Cancelled };

/// A generation so far: the ids (prompt first), each position's log-probability and the run of
/// every id (the cache the next step reuses).
struct Generation {
    std::vector<std::int32_t> ids;
    std::size_t prompt = 0;  ///< ids[0, prompt) are the prompt
    /// log p(ids[i] | ids[0, i)) under the model (τ = 1, the controls applied); NaN at 0,
    /// which nothing predicts.
    std::vector<float> logprobs;
    std::vector<Choice> choices;            ///< one per generated token
    std::shared_ptr<const model::Run> run;  ///< the run of ids (its logits: the next token's)
    StopReason stop = StopReason::Tokens;
};

/// One generated token as it streams out.
struct Step {
    int index = 0;  ///< 0 for the first generated token
    Choice choice;  ///< the token, its log-probability and the top 10 it came from
    std::shared_ptr<const model::Run> run;  ///< the run of every id including the new one
};

/// log p(ids[i] | ids[0, i)) for i in [from, n) from RUN (logits at every position, from the
/// residual stream leaving the last layer); entries before FROM are left NaN.
std::vector<float> token_logprobs(const model::Model& model, const model::Run& run,
                                  std::size_t from = 1);

/// The tokenizer's end-of-text id (<|endoftext|>, </s>, <|im_end|>, <eos>, …), if any.
std::optional<std::int32_t> eos_id(const model::Tokenizer& tokenizer);

/// Runs PROMPT (not empty) under CONTROLS: the generation before its first step, with the
/// prompt's log-probabilities. Throws ArgumentError for a bidirectional model (BERT does not
/// generate), attn::Cancelled when PROGRESS cancels.
Generation start(const model::Model& model, const std::vector<std::int32_t>& prompt,
                 const model::RunControls& controls, Progress* progress = nullptr);

/// One step: chooses the next token from G's last logits with OPTIONS.sampling, appends it and
/// runs the ids again with G's run as the prefix, so only the new position is computed. When
/// OPTIONS.controls differ from the run's, G's ids are first run again under them (a control
/// changed during generation applies from this step). G is unchanged when PROGRESS cancels
/// (attn::Cancelled) or the step throws. Throws ArgumentError when G is at the model's last
/// position.
Step step(const model::Model& model, Generation& g, const GenerateOptions& options,
          Progress* progress = nullptr);

/// Generates up to OPTIONS.tokens tokens after PROMPT, calling ON_STEP (optional) with each as
/// it is made; stops at the EOS token or a stop id (both kept in the ids), at N, at the model's
/// last position, or when PROGRESS cancels during a step (then the tokens made so far are
/// returned; a cancel during the prompt's run throws attn::Cancelled, as start does).
Generation generate(const model::Model& model, const model::Tokenizer& tokenizer,
                    const std::vector<std::int32_t>& prompt, const GenerateOptions& options,
                    Progress* progress = nullptr,
                    const std::function<void(const Step&)>& on_step = {});

/// Whether G, which has just made a token, ends there, and why (EOS: the id EOS).
std::optional<StopReason> stop_after(const model::Model& model, const Generation& g,
                                     const GenerateOptions& options,
                                     std::optional<std::int32_t> eos);

}  // namespace attn::gen
