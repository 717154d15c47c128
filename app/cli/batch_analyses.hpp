// AttnScope — `attnscope batch`: one dataset line through one analysis, with the single-prompt
// commands' own core calls (patch, compute --ablate, census, compute, attribute). GPL-3.0-or-later.
#pragma once

#include <QByteArray>
#include <string>

#include "attn/models/hooks.hpp"
#include "attn/scene/scene.hpp"
#include "cli/batch_record.hpp"

namespace cli::batch {

/// What every example of a run shares: the analysis, the model scene (a model folder opened as
/// `compute --model` opens it; each example sets its text) and the options.
struct Runner {
    Analysis analysis = Analysis::Patch;
    attn::SceneSpec scene;
    attn::model::AblationMode ablation = attn::model::AblationMode::Zero;
    AttributeSettings attribute;  ///< attribute: its methods (each one the model computes)
};

/// The outcome of dataset line LINE (number NUMBER, from 1): its example's values, or a skipped
/// entry whose reason names the line and the problem (invalid JSON, a missing or mistyped
/// field, too many tokens, an answer that is not one token, prompts of unequal length, or the
/// analysis's own refusal). Throws only what is not the line's fault (memory, cancellation).
Entry runLine(const Runner& runner, const QByteArray& line, std::int64_t number);

}  // namespace cli::batch
