// AttnScope core — a model folder's weights as people have them: one model.safetensors or the
// shards model.safetensors.index.json maps, F32 / F16 / BF16, memory-mapped. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attn/weights/safetensors.hpp"

namespace attn::model {

/// The weight files of a Hugging Face folder, every tensor reachable by name. Each header,
/// offset, shape and dtype is checked against its file when the folder is opened.
class Weights {
  public:
    /// Opens DIR's model.safetensors, or else every shard its model.safetensors.index.json
    /// maps (a shard must lie in DIR, or in the Hugging Face cache's blobs of DIR's repository;
    /// a tensor the index names must be in its shard). A folder with only pytorch_model.bin is
    /// refused (pickles are never loaded) with the command that converts it. Throws
    /// FormatError naming the file and the problem.
    /// KEEP says how large F16 / BF16 matrices are held (see Keep); vectors are always widened.
    explicit Weights(const std::string& dir, Keep keep = Keep::Widened);

    /// One tensor and the file it lives in.
    struct Entry {
        const SafetensorsFile* file = nullptr;
        const TensorInfo* info = nullptr;
    };
    /// The tensor called NAME, or null.
    const TensorInfo* find(const std::string& name) const;
    /// Every tensor, by name.
    const std::map<std::string, Entry>& tensors() const { return tensors_; }
    /// NAME as a ROWS × COLS float matrix (see FloatTensor); F16 / BF16 are widened and the
    /// pages they were read from leave resident memory, or kept as stored (the constructor's KEEP).
    /// Throws FormatError when it is missing, ShapeError / NonFiniteError naming the file and the
    /// tensor.
    FloatTensor get(const std::string& name, Index rows, Index cols) const;
    /// "FILE: tensor \"NAME\"", for messages.
    std::string describe(const std::string& name) const;
    /// The folder.
    const std::string& dir() const { return dir_; }
    /// Bytes of every weight file.
    double file_bytes() const { return file_bytes_; }
    /// Bytes of memory the weights take (F32 mapped, F16 / BF16 widened or kept as stored).
    double float_bytes() const;
    /// The type most of the weights have on disk ("F32", "F16", "BF16").
    std::string dtype() const;

  private:
    std::string dir_;
    Keep keep_ = Keep::Widened;
    std::vector<std::unique_ptr<SafetensorsFile>> files_;
    std::map<std::string, Entry> tensors_;
    double file_bytes_ = 0;
};

}  // namespace attn::model
