// AttnScope core — attention tensors from NumPy .npy and .npz files; .npz writer.
// GPL-3.0-or-later.
//
// Shapes: 2-D [Nq,Nk], 3-D [H,Nq,Nk] or 4-D [L,H,Nq,Nk].
// .npy: one component; it counts as post-softmax weights ("attention") when every entry is ≥ 0
//       and every row sums to 1 (±1e-3) or 0 (a fully masked row), otherwise as raw scores
//       ("scores"), to which the live controls apply.
// .npz: members `scores` (raw q·k before scaling and masking) and/or `attention` (weights).
//       With both, component 0 is "scores" (live) and component 1 is "attention" (the model's
//       weights, for comparison); their shapes must agree. Tokens come from `tokens`, or from
//       `query_tokens` + `key_tokens` (NumPy unicode arrays); without them positions are
//       labelled 0…n−1. d_k is 64 unless a numeric member `d_k` (one element) says otherwise.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention/loaded_attention.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/util/progress.hpp"

namespace attn::io {

/// d_k assumed for loaded raw scores when the file does not say (GPT-2/BERT base heads).
inline constexpr float kDefaultDataDk = 64.f;

/// Where the bytes under an NpyView come from while its matrices are copied out: a stream that
/// is still being read (need) and whose consumed memory can be given back (release).
class ByteSource {
  public:
    virtual ~ByteSource() = default;
    /// Makes bytes [0, end) of the viewed file valid (a stream reads up to there).
    virtual void need(std::size_t end) = 0;
    /// Bytes [offset, offset + length) have been copied out; their memory may be returned.
    virtual void release(std::size_t offset, std::size_t length) = 0;
};

/// Builds a component (layers × heads matrices) from a numeric 2/3/4-D array; NaN/Inf rejected
/// with their index. When `mapping` is given, consumed pages are released as the copy proceeds.
AttentionComponent component_from_npy(const NpyView& view, std::string component_name,
                                      bool are_scores, Progress* progress = nullptr,
                                      const MappedFile* mapping = nullptr);

/// The same over bytes that arrive as the copy proceeds (e.g. a stored .npz member read
/// through libzip): each matrix is copied as soon as its bytes are in, then released.
AttentionComponent component_from_npy(const NpyView& view, std::string component_name,
                                      bool are_scores, Progress* progress, ByteSource& source);

/// Whether matrices look like post-softmax weights (entries ≥ 0, rows summing to 1 or 0).
bool looks_like_weights(const std::vector<Matrix>& mats);
/// Whether one row of n values looks like post-softmax weights (see looks_like_weights).
bool is_weights_row(const float* row, Index n);

/// The one rule for what a file calls attention weights (an .npz's `attention`, BertViz's and
/// CircuitsVis's weights): no entry is negative. Throws FormatError "WHERE: attention weights
/// are post-softmax (≥ 0), but …" naming the first negative entry [layer, head, query, key]
/// (from 0), its value and how many there are, and that raw scores go in `scores`. Rows need
/// not sum to 1 (a file may hold a slice of the tokens). A component read row by row from its
/// file (AttentionComponent::rows) is not read here.
void check_weights(const AttentionComponent& c, const std::string& where);

/// Cells per layer above which a loaded tensor is read row by row from its file instead of
/// converted to matrices: kWeightCellLimit unless set_long_tensor_cells changed it.
double long_tensor_cells();
/// Test hook: sets long_tensor_cells (0 restores kWeightCellLimit), so small files take the
/// streamed path.
void set_long_tensor_cells(double cells);

/// A numeric [Nq,Nk], [H,Nq,Nk] or [L,H,Nq,Nk] .npy (any float dtype, byte order or memory
/// order) whose layer holds more than long_tensor_cells(), opened as a component read row by
/// row from the map (AttentionComponent::rows) instead of converted; nullopt for any other
/// file (load_npy_attention converts it). Fortran order is transposed once to a temporary file.
std::optional<AttentionData> mapped_npy_attention(const std::string& path,
                                                  Progress* progress = nullptr);

/// Loads attention from a .npy file (memory-mapped); throws FormatError naming the file.
AttentionData load_npy_attention(const std::string& path, Progress* progress = nullptr);
/// Parses attention from .npy bytes (name used in messages).
AttentionData parse_npy_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress = nullptr);

/// Loads attention from a .npz archive (stored or deflated members); a long `scores` or
/// `attention` member is read row by row: a stored one from the archive's map, a deflated one
/// from a temporary file it is inflated to once.
AttentionData load_npz_attention(const std::string& path, Progress* progress = nullptr);
/// Parses attention from .npz bytes (name used in messages).
AttentionData parse_npz_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress = nullptr);

/// Named .npy payloads of an archive, in order ("raw" becomes member "raw.npy").
using NpzMembers = std::vector<std::pair<std::string, std::vector<std::byte>>>;
/// Reads every .npy member of an .npz held in memory (names without ".npy"), in archive order.
NpzMembers parse_npz(std::span<const std::byte> bytes, const std::string& name);
/// Reads every .npy member of an .npz file.
NpzMembers read_npz(const std::string& path);
/// Writes members to path as an uncompressed (stored) .npz archive.
void write_npz(const std::string& path, const NpzMembers& members);

}  // namespace attn::io
