// AttnScope core — what a model folder holds, as a session records it: the family, the shapes
// and a hash of config.json and the weight files' headers. GPL-3.0-or-later.
#pragma once

#include <string>

#include "attn/models/model.hpp"

namespace attn::model {

/// A model folder's identity: enough to tell, when a session reopens DIR, that the folder now
/// holds another model (another family, other shapes, an edited config or re-saved weights)
/// without reading the weights themselves.
struct ModelIdentity {
    std::string family;  ///< config.json's model_type ("gpt2", "bert", "llama", …)
    int layers = 0;
    int heads = 0;
    int d_model = 0;
    int vocab = 0;
    /// "fnv1a64:" and 16 hex digits: FNV-1a 64 of config.json's bytes and of every weight
    /// file's safetensors header (its length and JSON: names, dtypes, shapes, offsets).
    std::string hash;
    bool operator==(const ModelIdentity&) const = default;
};

/// The identity of an opened folder (its info and the files in folder.dir); throws
/// FormatError naming a file that cannot be read.
ModelIdentity model_identity(const ModelFolder& folder);

/// The family as users know it ("GPT-2" for "gpt2"; the model_type itself when unknown).
std::string family_display(const std::string& model_type);

/// What differs between the identity a session SAVED and the folder's identity NOW, in words
/// ("family BERT (bert) instead of GPT-2 (gpt2), 2 layers instead of 3"; "config.json or the
/// weight files' headers changed" when only the hash differs); "" when they agree.
std::string identity_difference(const ModelIdentity& saved, const ModelIdentity& now);

}  // namespace attn::model
