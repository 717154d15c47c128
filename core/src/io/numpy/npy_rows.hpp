// AttnScope core — long attention tensors read row by row from a memory map instead of converted
// to matrices: a .npy file, a stored .npz member, or a temporary file (an inflated member, a
// Fortran-order array transposed). Private to the readers. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "attn/attention/loaded_attention.hpp"
#include "attn/files/mapped_file.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/util/progress.hpp"

namespace attn::io::detail {

/// A checked .npy array somewhere inside a mapped file.
struct MappedArray {
    std::shared_ptr<const MappedFile> file;
    std::size_t begin = 0;  ///< the .npy's first byte (its magic) in the file
    NpyHeader header;       ///< its data_offset counts from begin
    std::string name;       ///< the name messages use ("x.npz: scores.npy")
};

/// The .npy of `length` bytes at `begin` of file, its header checked against the length.
MappedArray mapped_array(std::shared_ptr<const MappedFile> file, std::size_t begin,
                         std::size_t length, std::string name);

/// Whether a header describes a numeric 2-, 3- or 4-D tensor without empty dimensions whose
/// layer holds more than long_tensor_cells() cells: read row by row rather than converted.
bool is_long_tensor(const NpyHeader& h);

/// A Fortran-order array copied once, tile by tile, to a temporary float32 C-order file (its
/// rows contiguous); memory stays a few tiles, the disk space is checked first.
MappedArray transposed_to_rows(const MappedArray& a, Progress* progress);

/// A component whose rows are read from the array (AttentionComponent::rows), Fortran order
/// transposed first; raw scores or weights as are_scores says, or by looking at every row.
AttentionComponent rows_component(MappedArray a, std::optional<bool> are_scores,
                                  Progress* progress);

}  // namespace attn::io::detail
