// AttnScope core — a model run as a scene: the shown layer's stages as computed inside the run.
// GPL-3.0-or-later.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/model/model.hpp"
#include "attn/model/run.hpp"
#include "attn/scene.hpp"

namespace attn::model {

/// Whether the scene's scale, temperature and mask apply in layer L of its model run.
bool controls_apply_in(const SceneSpec& spec, Index layer);

/// The run controls a scene asks for: its scale, temperature and mask in spec.model_layers.
RunControls run_controls(const SceneSpec& spec);

/// The run of spec.model on spec.text with run_controls(spec). The last few runs are kept, so a
/// spec differing only in the shown layer, head or display reuses its run; PROGRESS may cancel.
/// Throws ArgumentError for an empty text, a layer out of range or more tokens than positions.
std::shared_ptr<const Run> scene_run(const SceneSpec& spec, Progress* progress = nullptr);

/// TEXT cut to its first MAX_TOKENS tokens of TOKENIZER (whole tokens; never ending inside a
/// UTF-8 character, so the cut text encodes to at most MAX_TOKENS tokens again); TEXT itself
/// when it fits. *CUT, when given, says whether it was cut.
std::string fit_text(const Tokenizer& tokenizer, const std::string& text, Index max_tokens,
                     bool* cut = nullptr);

/// Where a run of IDS reads its logits: for a bidirectional model (INFO.causal false) whose
/// TOKENIZER has a [MASK] token, the first [MASK] among IDS (fill-mask); else none (the last).
std::optional<Index> fill_mask_position(const ModelInfo& info, const Tokenizer& tokenizer,
                                        const std::vector<std::int32_t>& ids);

/// Forgets the kept runs (their memory goes now, not when the next runs replace them).
void release_runs();

/// The scene of a model run: layer spec.layer's heads with every stage as computed inside the
/// run (layers outside spec.model_layers as the model computes them: scaled, τ = 1, its own
/// mask), the
/// real q, k, v, the whole run and the ten likeliest next tokens.
SceneResult model_scene(const SceneSpec& spec, Progress* progress = nullptr);

/// The K likeliest next tokens after RUN, a run of FOLDER's model (softmax of its logits over
/// the ids a text stands for: no padding id, see vocabulary.hpp), likeliest first.
std::vector<NextToken> top_next_tokens(const Run& run, const ModelFolder& folder, int k = 10);

/// The Hugging Face hub cache: $HF_HOME/hub when HF_HOME is set, else
/// $HOME/.cache/huggingface/hub ("" when neither variable is set).
std::string hub_cache_dir();

/// Model folders in a hub cache: HUB/models--*/snapshots/* holding a config.json whose
/// model_type is a family that runs (families()) and safetensors weights (one file or an
/// index of shards), sorted by path; never throws.
std::vector<std::string> find_cached_models(const std::string& hub);

/// What a model folder is, from its config.json and the sizes of its weight files alone.
struct FolderSummary {
    std::string family;   ///< model_type of a family that runs; empty when none does
    std::string display;  ///< that family as users know it ("BERT")
    double bytes = 0;     ///< model.safetensors, or the shards an index names, together
};

/// DIR's summary (for menus: no tensor is read); never throws.
FolderSummary summarize_folder(const std::string& dir);

/// A model folder's name as a user knows it: the repository of a hub cache snapshot
/// ("openai-community/gpt2" for …/models--openai-community--gpt2/snapshots/<hash>), else the
/// folder's own name.
std::string model_name(const std::string& dir);

/// Bytes a run of N tokens keeps (every layer's stages, q, k, v), estimated before running.
double run_bytes(const ModelInfo& info, Index n);

}  // namespace attn::model
