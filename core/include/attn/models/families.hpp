// AttnScope core — which model families run, and opening a folder of any of them.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::model {

/// One family the app runs.
struct Family {
    std::string model_type;  ///< config.json's model_type
    std::string display;     ///< as users know it
    /// Opens a folder whose config.json names this family (DIR, the parsed config's path).
    ModelFolder (*open)(const std::string& dir);
    /// Opens a GGUF file of the architecture called model_type; null when the family reads none.
    ModelFolder (*open_gguf)(const std::string& path) = nullptr;
};

/// Every family that runs, in menu order.
const std::vector<Family>& families();

/// One encoder–decoder family (compute --target, translate).
struct Seq2SeqFamily {
    std::string model_type;  ///< config.json's model_type
    std::string display;     ///< as users know it
    /// Opens a folder whose config.json names this family.
    Seq2SeqFolder (*open)(const std::string& dir);
};

/// Every encoder–decoder family that runs.
const std::vector<Seq2SeqFamily>& seq2seq_families();

/// config.json's model_type in DIR; throws FormatError naming the file when it is missing.
std::string model_type(const std::string& dir);

/// Whether PATH is a regular file that begins with GGUF's magic bytes.
bool is_gguf_file(const std::string& path);

/// Opens DIR as the family its config.json names; throws FormatError naming model_type and the
/// families that run when none does; an encoder–decoder is refused naming the commands that run
/// it (open_seq2seq opens it). A GGUF file (is_gguf_file) opens as the family of its
/// general.architecture; an architecture no family reads is refused by name.
ModelFolder open_folder(const std::string& dir);

}  // namespace attn::model
