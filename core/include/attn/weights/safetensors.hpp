// AttnScope core — a memory-mapped .safetensors file (Hugging Face weights). GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attn/files/mapped_file.hpp"
#include "attn/util/types.hpp"

namespace attn::model {

/// Element types of safetensors; AttnScope computes with F32, F16 and BF16 and skips the others.
enum class DType { F32, F16, BF16, Other };

/// One tensor of a safetensors file: its type, shape and bytes inside the mapping.
struct TensorInfo {
    DType dtype = DType::F32;
    std::string dtype_name;  ///< as in the header ("F32", "BOOL", …)
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;
    /// Every value was found finite when the file opened (F32 tensors: SafetensorsFile).
    bool finite = false;
    /// The mapped file BYTES lie in (read through it once per run: MappedFile::read), or null.
    const io::MappedFile* file = nullptr;
    /// A GGUF tensor's ggml type when it is quantised (its blocks decoded by gguf_dequantize a
    /// block at a time inside each product), else −1.
    int quantised = -1;
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
    SafetensorsFile(const SafetensorsFile&) = delete;  // tensors point at file_
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

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
    /// Checks every F32 tensor for NaN and infinity in one pass on every thread (a tensor at a
    /// time, most are too small to split, and this pass is also the first touch of their pages);
    /// throws NonFiniteError naming the first such value of the file.
    void check_finite();

    std::string path_;
    io::MappedFile file_;
    std::map<std::string, TensorInfo> tensors_;
};

/// How a large F16 / BF16 matrix is held: widened to float32 once when it is read, or left in
/// the mapped file and widened a tile at a time as it is used (half the memory, nothing to
/// widen when the model opens, half the bytes to stream on every step of a long model).
enum class Keep { Widened, AsStored };

/// How a product reaches a kept matrix's stored rows: copied out of the file with pread, so a
/// forward alone leaves few of the file's pages mapped (its resident memory stays small), or read
/// in place through the mapping, for a reverse pass, whose backward maps every page anyway (it
/// reads column slices of the rows in place) and for which the copy would only be work.
enum class StoredReads { Copied, InPlace };

/// A tensor's values as a row-major ROWS × COLS float matrix: the mapped bytes themselves for
/// F32 (no copy); for F16 and BF16 a widened copy, or (Keep::AsStored) the mapped half-precision
/// values, widened on the fly by the products below.
class FloatTensor {
  public:
    FloatTensor() = default;
    /// TENSOR seen as ROWS × COLS; throws ShapeError when its shape is not [ROWS, COLS] (or
    /// [COLS] for a vector, ROWS = 1) and NonFiniteError naming WHAT and the element when a
    /// value is NaN or infinite. A matrix kept as stored (half precision, GGUF blocks) is
    /// checked where it is used instead: the products, row and block throw that error.
    FloatTensor(const TensorInfo& tensor, Index rows, Index cols, const std::string& what,
                Keep keep = Keep::Widened);
    /// TENSOR with its rows read in ORDER (row r of this is the stored row ORDER[r]): GGUF's
    /// llama Q and K rows, stored permuted for interleaved rotary, seen as Hugging Face's.
    FloatTensor(const TensorInfo& tensor, Index rows, Index cols, const std::string& what,
                Keep keep, std::vector<Index> order);
    /// True when the values are float32 in memory, so matrix() may be called.
    bool is_float() const { return half_ == nullptr && blocks_ == nullptr; }
    /// The float32 values (valid while the SafetensorsFile lives); throws Error for a tensor
    /// kept in half precision.
    Eigen::Map<const Matrix> matrix() const;
    /// X · thisᵀ (X: m × cols, the result m × rows): Hugging Face's Linear.
    Matrix mul_t(const Matrix& x, StoredReads reads = StoredReads::Copied) const;
    /// DY · this (DY: m × rows, the result m × cols): a Linear's input gradient. Throws
    /// ArgumentError for another width of DY, NonFiniteError as mul_t.
    Matrix mul(const Matrix& dy) const;
    /// Row R as a column vector.
    Vector row(Index r) const;
    /// The NR × NC block at (R0, C0), widened.
    Matrix block(Index r0, Index c0, Index nr, Index nc) const;
    /// Rows.
    Index rows() const { return rows_; }
    /// Columns.
    Index cols() const { return cols_; }

  private:
    /// Widens ROWS rows from R0, columns C0 … C0 + NC, into OUT (row-major, NC a row).
    void widen(Index r0, Index nr, Index c0, Index nc, float* out) const;
    /// The stored bytes of rows R0 … R0 + NR (whole rows, in stored order): read from the file
    /// into STAGING when it can be and READS says so (see MappedFile::read), else the mapping.
    const std::byte* stored_rows(Index r0, Index nr, std::vector<std::byte>& staging,
                                 StoredReads reads = StoredReads::Copied) const;
    /// mul_t for a BF16 tensor and a few rows of X: each weight read once, never widened out.
    Matrix mul_t_few(const Matrix& x, StoredReads reads) const;
    /// True when the products read this BF16 matrix's values directly (simd::bf16_products).
    bool direct_bf16() const;

    /// The quantised case: checks every block's scales and keeps the mapped blocks.
    void keep_blocks(const TensorInfo& tensor, const std::string& what);
    /// Throws NonFiniteError naming the first NaN or infinite value (half precision) or
    /// non-finite block scale (GGUF) of rows R0 … R0 + NR; returns when they have none.
    void refuse_rows(Index r0, Index nr) const;
    /// For a tensor kept as stored: refuse_rows on each row whose outputs in OUT (X · thisᵀ)
    /// are not finite.
    void refuse_non_finite_output(const Matrix& out) const;

    std::string what_;  ///< the tensor, for messages
    Matrix owned_;
    const float* mapped_ = nullptr;
    const std::byte* blocks_ = nullptr;  ///< quantised GGUF blocks, rows of row_bytes_
    std::uint32_t block_type_ = 0;
    std::size_t row_bytes_ = 0;
    std::vector<Index> order_;  ///< the stored row of each row (empty: the same)
    const std::uint16_t* half_ = nullptr;
    bool bf16_ = false;
    const io::MappedFile* file_ = nullptr;  ///< where half_ / blocks_ lie, read through it
    Index rows_ = 0, cols_ = 0;
};

}  // namespace attn::model
