// AttnScope core — a long .npy read row by row from its memory map (no conversion to matrices).
// GPL-3.0-or-later.
#include <cstring>
#include <memory>
#include <utility>

#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

namespace {

/// Rows of a float32 C-order [L,H,Nq,Nk] array over a mapping it keeps alive.
class NpyRowReader : public RowReader {
  public:
    NpyRowReader(std::shared_ptr<const NpyFile> file, Index heads, Index nq, Index nk)
        : file_(std::move(file)), heads_(heads), nq_(nq), nk_(nk) {}

    void read_row(Index l, Index h, Index i, float* out) const override {
        std::memcpy(out, row(l, h, i), static_cast<std::size_t>(nk_) * sizeof(float));
    }
    void release(Index l, Index h, Index first, Index count) const override {
        const std::size_t begin = offset(l, h, first);
        file_->mapping().release(begin, offset(l, h, first + count) - begin);
    }
    /// The bytes of row i of layer l, head h inside the file.
    std::size_t offset(Index l, Index h, Index i) const {
        const auto cell = ((static_cast<std::size_t>(l) * static_cast<std::size_t>(heads_) +
                            static_cast<std::size_t>(h)) *
                               static_cast<std::size_t>(nq_) +
                           static_cast<std::size_t>(i)) *
                          static_cast<std::size_t>(nk_);
        return file_->header().data_offset + cell * sizeof(float);
    }
    const std::byte* row(Index l, Index h, Index i) const {
        return file_->mapping().bytes().data() + offset(l, h, i);
    }

  private:
    std::shared_ptr<const NpyFile> file_;
    Index heads_, nq_, nk_;
};

}  // namespace

std::optional<AttentionData> mapped_npy_attention(const std::string& path, Progress* progress) {
    auto file = std::make_shared<const NpyFile>(path);
    const NpyHeader& h = file->header();
    const std::size_t dims = h.shape.size();
    // Only what can be read in place: little-endian float32 rows, C order, aligned.
    if (h.type != NpyType::Float32 || h.big_endian || h.fortran_order || dims < 3 || dims > 4 ||
        h.data_offset % sizeof(float) != 0)
        return std::nullopt;
    for (const std::uint64_t d : h.shape)
        if (d == 0) return std::nullopt;  // the converting path explains the empty dimension
    const auto layers = dims == 4 ? static_cast<Index>(h.shape[0]) : 1;
    const auto heads = static_cast<Index>(h.shape[dims - 3]);
    const auto nq = static_cast<Index>(h.shape[dims - 2]);
    const auto nk = static_cast<Index>(h.shape[dims - 1]);
    if (static_cast<double>(heads) * static_cast<double>(nq) * static_cast<double>(nk) <=
        kWeightCellLimit)
        return std::nullopt;  // small enough to convert: every stage stays in memory
    auto reader = std::make_shared<const NpyRowReader>(file, heads, nq, nk);
    AttentionComponent c;
    c.layers = layers;
    c.heads = heads;
    c.d_k = kDefaultDataDk;
    // Weights or raw scores, by the same rule as converted files; raw scores fail on row 0.
    bool weights = true;
    for (Index l = 0; l < layers && weights; ++l)
        for (Index hd = 0; hd < heads && weights; ++hd) {
            for (Index i = 0; i < nq && weights; ++i) {
                weights = is_weights_row(reinterpret_cast<const float*>(reader->row(l, hd, i)), nk);
                if (i % 64 == 63) reader->release(l, hd, i - 63, 64);
            }
            reader->release(l, hd, 0, nq);
            report(progress,
                   static_cast<double>(l * heads + hd + 1) / static_cast<double>(layers * heads));
        }
    c.are_scores = !weights;
    c.name = c.are_scores ? "scores" : "attention";
    for (Index i = 0; i < nq; ++i)
        c.q_tokens.push_back(std::to_string(i));
    for (Index j = 0; j < nk; ++j)
        c.k_tokens.push_back(std::to_string(j));
    c.rows = std::move(reader);
    AttentionData data;
    data.source = path;
    data.components.push_back(std::move(c));
    return data;
}

}  // namespace attn::io
