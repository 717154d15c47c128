// AttnScope core — NumPy .npy arrays: a strict header parser, typed conversion to float, writers.
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/files/mapped_file.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn::io {

/// Element types AttnScope reads (f2/f4/f8, b1, i4/i8 and fixed-width unicode U).
enum class NpyType { Float16, Float32, Float64, Bool, Int32, Int64, Unicode };

/// A checked .npy header.
struct NpyHeader {
    NpyType type = NpyType::Float32;
    bool big_endian = false;
    std::size_t item_size = 4;  ///< bytes per element (4·length for unicode)
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;  ///< empty for a 0-d scalar
    std::size_t data_offset = 0;       ///< first data byte
    /// Number of elements (product of the shape).
    std::uint64_t count() const;
    /// NumPy-style name: "float32", "float16", "<U7", …
    std::string dtype_name() const;
    /// Whether the elements are numbers (not unicode).
    bool numeric() const { return type != NpyType::Unicode; }
};

/// Parses the header of a whole .npy file held in memory and checks that the data the header
/// promises is exactly what the bytes hold; throws FormatError naming `name` and the place.
NpyHeader parse_npy_header(std::span<const std::byte> file, std::string_view name);
/// Parses the header at the start of `head` (which holds at least the whole header) without
/// checking the data that follows it (a member read in pieces: see check_npy_size).
NpyHeader parse_npy_header_only(std::span<const std::byte> head, std::string_view name);
/// Checks that a file of file_size bytes holds exactly the data h promises; throws FormatError.
void check_npy_size(const NpyHeader& h, std::uint64_t file_size, std::string_view name);
/// Converts n consecutive elements of h's numeric dtype at p to float, as copy_matrix does
/// (byte order swapped, float64 rounded, float16 widened); no finiteness check.
void decode_floats(const std::byte* p, const NpyHeader& h, std::size_t n, float* out);

/// A checked .npy array over borrowed bytes (a mapped file or an npz member).
class NpyView {
  public:
    /// Parses and checks the header (see parse_npy_header); the bytes must outlive the view.
    NpyView(std::span<const std::byte> file, std::string name);
    /// The checked header.
    const NpyHeader& header() const { return header_; }
    /// The name used in messages.
    const std::string& name() const { return name_; }
    /// Number of 2-D matrices (product of all but the last two dimensions); needs ≥ 2 dims.
    std::uint64_t matrix_count() const;
    /// Copies matrix `slice` (C order over the leading dimensions) as float, row-major;
    /// NaN/Inf throw FormatError with the full index when require_finite.
    void copy_matrix(std::uint64_t slice, Matrix& out, bool require_finite = true) const;
    /// All numeric elements as float in C (row-major) order; NaN/Inf rejected when asked.
    std::vector<float> to_floats(bool require_finite = true) const;
    /// The elements of a unicode array, UTF-8 encoded, trailing NULs removed, in C order.
    std::vector<std::string> to_strings() const;
    /// The byte range of matrix `slice` in the file when stored contiguously (C order).
    std::pair<std::size_t, std::size_t> matrix_bytes(std::uint64_t slice) const;

  private:
    double value_at(std::size_t byte_offset) const;
    std::span<const std::byte> file_;
    std::string name_;
    NpyHeader header_;
};

/// A numeric array converted to float, row-major.
struct NpyArray {
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
};

/// Reads a numeric .npy (memory-mapped) into floats; NaN/Inf rejected with their index.
NpyArray read_npy(const std::string& path);

/// Parses a numeric .npy held in memory (name is used in messages).
NpyArray parse_npy(std::span<const std::byte> file, std::string_view name);

/// A .npy file opened through a read-only memory map: its matrices are converted on demand,
/// so the first heatmap of a huge tensor is ready without reading the rest.
class NpyFile {
  public:
    /// Maps and checks path (header against file size) without reading the data.
    explicit NpyFile(const std::string& path);
    /// The checked header.
    const NpyHeader& header() const { return view_.header(); }
    /// The array view over the mapping.
    const NpyView& view() const { return view_; }
    /// The mapping (for release() after a slice was consumed).
    const MappedFile& mapping() const { return file_; }
    /// Matrix `slice` (see NpyView::copy_matrix).
    Matrix matrix(std::uint64_t slice) const;

  private:
    MappedFile file_;
    NpyView view_;
};

/// The preamble and header of a float32 C-order .npy of the given shape (data follows it).
std::vector<std::byte> npy_f4_header(std::span<const std::uint64_t> shape);
/// Serialises float32 data of the given shape (C order) as a version 1.0 .npy.
std::vector<std::byte> npy_bytes(std::span<const float> values,
                                 std::span<const std::uint64_t> shape);
/// A 1-D little-endian int32 .npy file of VALUES ("<i4").
std::vector<std::byte> npy_i4_bytes(std::span<const std::int32_t> values);
/// Little-endian int32 VALUES of the given shape (C order) as a .npy file.
std::vector<std::byte> npy_i4_bytes(std::span<const std::int32_t> values,
                                    std::span<const std::uint64_t> shape);
/// DATA, the little-endian C-order elements of dtype DESCR ("<f8", "<i8", …) of the given shape,
/// as a .npy file (the bytes are not interpreted; their count must match).
std::vector<std::byte> npy_raw_bytes(std::string_view descr, std::span<const std::uint64_t> shape,
                                     std::span<const std::byte> data);
/// Serialises strings as a 1-D NumPy unicode array (<U n, n the longest in code points).
std::vector<std::byte> npy_string_bytes(const std::vector<std::string>& strings);
/// Strings of the given shape (C order) as a NumPy unicode array.
std::vector<std::byte> npy_string_bytes(const std::vector<std::string>& strings,
                                        std::span<const std::uint64_t> shape);
/// Writes float32 data of the given shape (C order) to path as .npy.
void write_npy(const std::string& path, std::span<const float> values,
               std::span<const std::uint64_t> shape);
/// Writes a matrix (rows × cols) to path as a 2-D float32 .npy.
void write_npy(const std::string& path, const Matrix& m);

}  // namespace attn::io
