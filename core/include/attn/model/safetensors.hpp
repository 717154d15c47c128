// AttnScope core — a memory-mapped .safetensors file (Hugging Face weights). GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attn/io/mapped_file.hpp"
#include "attn/types.hpp"

namespace attn::model {

/// Element types of safetensors; AttnScope computes with F32, F16 and BF16 and skips the others.
enum class DType { F32, F16, BF16, Other };

/// One tensor of a safetensors file: its type, shape and bytes inside the mapping.
struct TensorInfo {
    DType dtype = DType::F32;
    std::string dtype_name;  ///< as in the header ("F32", "BOOL", …)
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;
    /// The number of elements (product of the shape; 1 for a scalar).
    std::int64_t count() const;
};

/// SHAPE as "[768, 2304]", for messages.
std::string shape_text(const std::vector<std::int64_t>& shape);

/// A .safetensors file: an 8-byte little-endian header length, a JSON header of
/// {name: {dtype, shape, data_offsets}}, then the raw bytes. Mapped, never read whole; every
/// tensor's byte range is checked against its shape and the file's size when it is opened.
class SafetensorsFile {
  public:
    /// Maps PATH and checks its header; throws FormatError naming the file and the tensor.
    explicit SafetensorsFile(const std::string& path);

    /// The tensor called NAME, or null.
    const TensorInfo* find(const std::string& name) const;
    /// Every tensor, by name.
    const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
    /// The file's path, for messages.
    const std::string& path() const { return path_; }
    /// The file's size in bytes.
    std::size_t file_size() const { return file_.size(); }
    /// Lets the pages of TENSOR (one of this file's) leave resident memory once it was copied.
    void release(const TensorInfo& tensor) const;

  private:
    std::string path_;
    io::MappedFile file_;
    std::map<std::string, TensorInfo> tensors_;
};

/// A tensor's values as a row-major float matrix: the mapped bytes themselves for F32 (no
/// copy), a widened copy for F16 and BF16.
class FloatTensor {
  public:
    FloatTensor() = default;
    /// TENSOR seen as ROWS × COLS; throws ShapeError when its shape is not [ROWS, COLS] (or
    /// [COLS] for a vector, ROWS = 1) and NonFiniteError naming WHAT and the element when a
    /// value is NaN or infinite.
    FloatTensor(const TensorInfo& tensor, Index rows, Index cols, const std::string& what);
    /// The values (valid while the SafetensorsFile lives).
    Eigen::Map<const Matrix> matrix() const {
        return {owned_.size() ? owned_.data() : mapped_, rows_, cols_};
    }

  private:
    Matrix owned_;
    const float* mapped_ = nullptr;
    Index rows_ = 0, cols_ = 0;
};

}  // namespace attn::model
