// AttnScope core — model folders on disk: the Hugging Face hub cache, a folder's summary and name.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

namespace attn::model {

/// The Hugging Face hub cache: $HF_HOME/hub when HF_HOME is set, else
/// $HOME/.cache/huggingface/hub ("" when neither variable is set).
std::string hub_cache_dir();

/// Model folders in a hub cache: HUB/models--*/snapshots/* holding a config.json whose
/// model_type is a family that runs (families(), or seq2seq_families()'s encoder–decoders) and
/// safetensors weights (one file or an index of shards), sorted by path; never throws.
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
/// folder's own name; an Ollama blob's name in its manifests ("qwen2.5:0.5b"), a GGUF file's name.
std::string model_name(const std::string& dir);

}  // namespace attn::model
