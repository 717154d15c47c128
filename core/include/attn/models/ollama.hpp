// AttnScope core — models an Ollama installation holds: its manifests name GGUF blobs.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

namespace attn::model {

/// Ollama's models folder: $OLLAMA_MODELS when set, else $HOME/.ollama/models ("" when neither
/// variable is set).
std::string ollama_models_dir();

/// One model of an Ollama folder.
struct OllamaModel {
    std::string name;          ///< as `ollama list` shows it: "qwen2.5:0.5b", "user/model:tag"
    std::string blob;          ///< its GGUF file, DIR/blobs/sha256-…
    std::string architecture;  ///< the GGUF's general.architecture
    double bytes = 0;          ///< the blob's size
};

/// The models of DIR/manifests/<host>/<namespace>/<model>/<tag>: each manifest's layer of
/// mediaType application/vnd.ollama.image.model names a blob (digest sha256:<64 hex>) that is a
/// regular file (not a symbolic link) under DIR/blobs, a GGUF of an architecture a family reads;
/// sorted by name; never throws.
std::vector<OllamaModel> find_ollama_models(const std::string& dir);

/// The name a manifest of BLOB's Ollama folder (BLOB's folder is DIR/blobs) gives it, from the
/// manifests alone, or "" when BLOB is not such a blob or no manifest names it; never throws.
std::string ollama_name(const std::string& blob);

}  // namespace attn::model
