// AttnScope core — a long .npy read row by row from its memory map (no conversion to matrices).
// GPL-3.0-or-later.
#include "npy_rows.hpp"

#include <atomic>
#include <utility>
#include <vector>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/scene/scene.hpp"  // kWeightCellLimit, the threshold of a long tensor

namespace attn::io {

namespace {

std::atomic<double> g_long_cells{0};  // 0: kWeightCellLimit

/// The layers, heads, queries and keys of a 2-, 3- or 4-D attention shape.
struct Dims {
    Index layers, heads, nq, nk;
};
Dims dims_of(const NpyHeader& h) {
    const std::size_t n = h.shape.size();
    return {n == 4 ? static_cast<Index>(h.shape[0]) : 1,
            n >= 3 ? static_cast<Index>(h.shape[n - 3]) : 1, static_cast<Index>(h.shape[n - 2]),
            static_cast<Index>(h.shape[n - 1])};
}

/// Rows of a C-order [L,H,Nq,Nk] array of any numeric dtype over a mapping it keeps alive;
/// each row is converted to float as it is read (a plain copy for little-endian float32).
class ArrayRowReader : public RowReader {
  public:
    explicit ArrayRowReader(detail::MappedArray a) : a_(std::move(a)), d_(dims_of(a_.header)) {}

    void read_row(Index l, Index h, Index i, float* out) const override {
        decode_floats(a_.file->bytes().data() + offset(l, h, i), a_.header,
                      static_cast<std::size_t>(d_.nk), out);
    }
    void release(Index l, Index h, Index first, Index count) const override {
        const std::size_t begin = offset(l, h, first);
        a_.file->release(begin, offset(l, h, first + count) - begin);
    }
    const Dims& dims() const { return d_; }

  private:
    /// The byte of row i of layer l, head h inside the file.
    std::size_t offset(Index l, Index h, Index i) const {
        const auto cell = ((static_cast<std::size_t>(l) * static_cast<std::size_t>(d_.heads) +
                            static_cast<std::size_t>(h)) *
                               static_cast<std::size_t>(d_.nq) +
                           static_cast<std::size_t>(i)) *
                          static_cast<std::size_t>(d_.nk);
        return a_.begin + a_.header.data_offset + cell * a_.header.item_size;
    }

    detail::MappedArray a_;
    Dims d_;
};

}  // namespace

double long_tensor_cells() {
    const double cells = g_long_cells.load();
    return cells > 0 ? cells : kWeightCellLimit;
}

void set_long_tensor_cells(double cells) {
    g_long_cells = cells;
}

namespace detail {

MappedArray mapped_array(std::shared_ptr<const MappedFile> file, std::size_t begin,
                         std::size_t length, std::string name) {
    NpyHeader h = parse_npy_header(file->bytes().subspan(begin, length), name);
    return {std::move(file), begin, std::move(h), std::move(name)};
}

bool is_long_tensor(const NpyHeader& h) {
    const std::size_t n = h.shape.size();
    if (!h.numeric() || n < 2 || n > 4) return false;
    for (const std::uint64_t d : h.shape)
        if (d == 0) return false;  // the converting path explains the empty dimension
    const Dims d = dims_of(h);
    return static_cast<double>(d.heads) * static_cast<double>(d.nq) * static_cast<double>(d.nk) >
           long_tensor_cells();
}

AttentionComponent rows_component(MappedArray a, std::optional<bool> are_scores,
                                  Progress* progress) {
    if (a.header.fortran_order) a = transposed_to_rows(a, progress);
    auto reader = std::make_shared<const ArrayRowReader>(std::move(a));
    const Dims d = reader->dims();
    AttentionComponent c;
    c.layers = d.layers;
    c.heads = d.heads;
    c.d_k = kDefaultDataDk;
    if (!are_scores) {
        // Weights or raw scores, by the same rule as converted files; raw scores fail on row 0.
        std::vector<float> row(static_cast<std::size_t>(d.nk));
        bool weights = true;
        for (Index l = 0; l < d.layers && weights; ++l)
            for (Index h = 0; h < d.heads && weights; ++h) {
                for (Index i = 0; i < d.nq && weights; ++i) {
                    reader->read_row(l, h, i, row.data());
                    weights = is_weights_row(row.data(), d.nk);
                    if (i % 64 == 63) reader->release(l, h, i - 63, 64);
                }
                reader->release(l, h, 0, d.nq);
                report(progress, static_cast<double>(l * d.heads + h + 1) /
                                     static_cast<double>(d.layers * d.heads));
            }
        are_scores = !weights;
    }
    c.are_scores = *are_scores;
    c.name = c.are_scores ? "scores" : "attention";
    for (Index i = 0; i < d.nq; ++i)
        c.q_tokens.push_back(std::to_string(i));
    for (Index j = 0; j < d.nk; ++j)
        c.k_tokens.push_back(std::to_string(j));
    c.rows = std::move(reader);
    return c;
}

}  // namespace detail

std::optional<AttentionData> mapped_npy_attention(const std::string& path, Progress* progress) {
    auto file = std::make_shared<const MappedFile>(path);
    const std::size_t size = file->size();
    detail::MappedArray a = detail::mapped_array(std::move(file), 0, size, detail::base_name(path));
    if (!detail::is_long_tensor(a.header)) return std::nullopt;
    AttentionData data;
    data.source = path;
    data.components.push_back(detail::rows_component(std::move(a), std::nullopt, progress));
    return data;
}

}  // namespace attn::io
