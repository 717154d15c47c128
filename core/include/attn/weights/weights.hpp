// AttnScope core — a model folder's weights as people have them: one model.safetensors or the
// shards model.safetensors.index.json maps, F32 / F16 / BF16, memory-mapped. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attn/weights/gguf.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::model {

/// How a GGUF file's tensors become a Hugging Face folder's: llama.cpp's converter stores the
/// rows of a llama-architecture Q and K permuted for interleaved rotary positions (per head,
/// [2, head_dim / 2] → [head_dim / 2, 2]); those are put back for HEADS and KV_HEADS heads.
/// FUSED_GATE_UP: ffn_up holds the gate's rows then the up's (Phi-3's gate_up_proj).
struct GgufLayout {
    bool unpermute_qk = false;
    int heads = 0, kv_heads = 0;
    bool fused_gate_up = false;
};

/// The stored row of each of a permuted Q or K matrix's ROWS rows for HEADS heads (see
/// GgufLayout); throws ShapeError naming WHAT when ROWS is not whole heads of even size.
std::vector<Index> gguf_unpermuted_rows(Index rows, int heads, const std::string& what);

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
    /// FILE's tensors under Hugging Face's names (token_embd.weight is
    /// model.embed_tokens.weight, blk.N.attn_q.weight model.layers.N.self_attn.q_proj.weight, …;
    /// gguf_hf_name), quantised ones kept as blocks; tensors of no such name are left out.
    Weights(std::shared_ptr<const GgufFile> file, const GgufLayout& layout);

    /// One tensor and the file it lives in.
    struct Entry {
        const SafetensorsFile* file = nullptr;  ///< null for a GGUF tensor
        const TensorInfo* info = nullptr;
        const GgufTensor* gguf = nullptr;  ///< the GGUF tensor it is (its own name)
        int permute_heads = 0;             ///< its rows are stored permuted for this many heads
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
    std::shared_ptr<const GgufFile> gguf_;
    std::map<std::string, TensorInfo> gguf_infos_;  ///< the GGUF tensors as TensorInfo
    std::map<std::string, Entry> tensors_;
    double file_bytes_ = 0;
};

}  // namespace attn::model
