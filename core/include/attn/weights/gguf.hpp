// AttnScope core — GGUF files (llama.cpp, Ollama, LM Studio): header, metadata, tensor table and
// the block formats of their quantised tensors. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "attn/files/mapped_file.hpp"

namespace attn::model {

/// The tensor types AttnScope reads (ggml's numbering, as stored in the file).
enum class GgufType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};

/// The name ggml gives a tensor type ("Q4_K"), also for types AttnScope does not read ("type 23"
/// when it has no name).
std::string gguf_type_name(std::uint32_t type);

/// Values per block of TYPE (1 for F32/F16/BF16, 32 for Q4_0/Q4_1/Q5_0/Q5_1/Q8_0, 256 for the
/// K types).
std::size_t gguf_block_values(GgufType type);

/// Bytes per block of TYPE.
std::size_t gguf_block_bytes(GgufType type);

/// Decodes COUNT values of TYPE from SRC (COUNT a multiple of the block's values, SRC holding
/// COUNT / block_values blocks) into DST, exactly as ggml's dequantize_row_* do.
void gguf_dequantize(GgufType type, const std::byte* src, float* dst, std::size_t count);

/// The first of BLOCKS blocks of a quantised TYPE at SRC whose f16 scale is NaN or infinite
/// (the only way its values can be), or −1; −1 for F32 / F16 / BF16, which are checked per value.
std::int64_t gguf_first_bad_block(GgufType type, const std::byte* src, std::size_t blocks);

/// The Hugging Face name of a llama.cpp tensor name of the decoder families ("token_embd.weight"
/// → "model.embed_tokens.weight", "blk.3.ffn_down.weight" → "model.layers.3.mlp.down_proj.weight",
/// "output.weight" → "lm_head.weight"), or "" for a name it does not know.
std::string gguf_hf_name(const std::string& name);

/// gguf_hf_name's inverse ("model.layers.3.mlp.down_proj.weight" → "blk.3.ffn_down.weight"), or
/// "" for a name it does not know.
std::string gguf_name_of(const std::string& hf);

/// One metadata value: integers widened to 64 bits, floats to double; arrays of strings or of
/// numbers (numbers as double, integers exactly up to 2^53).
using GgufValue = std::variant<std::int64_t, std::uint64_t, double, bool, std::string,
                               std::vector<std::string>, std::vector<double>>;

/// One entry of the tensor table.
struct GgufTensor {
    std::string name;
    std::vector<std::uint64_t> dims;  ///< ggml's order: dims[0] varies fastest (a row's length)
    GgufType type = GgufType::F32;
    std::uint64_t offset = 0;  ///< from the file's start, aligned
    std::uint64_t bytes = 0;   ///< the tensor's bytes in the file
    std::uint64_t count = 0;   ///< values
};

/// A GGUF file, memory-mapped. Every header field, count, string length, offset, alignment and
/// tensor extent is checked against the file before use; a tensor type AttnScope does not read
/// is refused by name when the file is opened.
class GgufFile {
  public:
    /// Opens PATH; throws FormatError naming the file, the field or tensor, and the sizes.
    explicit GgufFile(const std::string& path);
    GgufFile(const GgufFile&) = delete;  // tensors point at file_
    GgufFile& operator=(const GgufFile&) = delete;

    /// The file's path.
    const std::string& path() const { return path_; }
    /// The file's size in bytes.
    std::size_t size() const { return file_.size(); }
    /// The format version (2 or 3).
    std::uint32_t version() const { return version_; }
    /// Every metadata key and its value.
    const std::map<std::string, GgufValue>& metadata() const { return metadata_; }
    /// The tensors, in the file's order.
    const std::vector<GgufTensor>& tensors() const { return tensors_; }
    /// The tensor called NAME, or null.
    const GgufTensor* find(const std::string& name) const;
    /// A tensor's bytes inside the mapping.
    std::span<const std::byte> data(const GgufTensor& t) const;
    /// The mapped file (to read a tensor's bytes without touching the mapping).
    const io::MappedFile& mapped() const { return file_; }
    /// The tensor's values as float32, dequantised.
    std::vector<float> floats(const GgufTensor& t) const;

    /// The string at KEY; throws FormatError naming the file and the key when it is missing or
    /// not a string.
    const std::string& string(const std::string& key) const;
    /// The unsigned integer at KEY (any integer type, not negative), or FALLBACK when absent;
    /// throws FormatError when it has another type.
    std::uint64_t integer(const std::string& key, std::uint64_t fallback) const;
    /// The number at KEY (float or integer), or FALLBACK when absent.
    double number(const std::string& key, double fallback) const;

  private:
    std::string path_;
    io::MappedFile file_;
    std::uint32_t version_ = 0;
    std::map<std::string, GgufValue> metadata_;
    std::vector<GgufTensor> tensors_;
    std::map<std::string, std::size_t> by_name_;
};

}  // namespace attn::model
