// AttnScope core — attention components from NumPy arrays (.npy). GPL-3.0-or-later.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/memory_budget.hpp"

namespace attn::io {

using detail::fail;

namespace {

/// A memory map is whole from the start; consumed pages go back to the page cache.
class MappedSource : public ByteSource {
  public:
    explicit MappedSource(const MappedFile* mapping) : mapping_(mapping) {}
    void need(std::size_t) override {}
    void release(std::size_t offset, std::size_t length) override {
        if (mapping_) mapping_->release(offset, length);
    }

  private:
    const MappedFile* mapping_;
};

}  // namespace

AttentionComponent component_from_npy(const NpyView& view, std::string component_name,
                                      bool are_scores, Progress* progress,
                                      const MappedFile* mapping) {
    MappedSource source(mapping);
    return component_from_npy(view, std::move(component_name), are_scores, progress, source);
}

AttentionComponent component_from_npy(const NpyView& view, std::string component_name,
                                      bool are_scores, Progress* progress, ByteSource& source) {
    const NpyHeader& h = view.header();
    if (!h.numeric())
        fail(view.name(), "holds " + h.dtype_name() + " strings, not an attention tensor");
    if (h.shape.size() < 2 || h.shape.size() > 4)
        fail(view.name(), "expected a 2-D [Nq,Nk], 3-D [H,Nq,Nk] or 4-D [L,H,Nq,Nk] array, got " +
                              std::to_string(h.shape.size()) + "-D (" +
                              detail::shape_string(h.shape) + ")");
    for (std::size_t k = 0; k < h.shape.size(); ++k)
        if (h.shape[k] == 0)
            fail(view.name(), "dimension " + std::to_string(k) + " is zero (" +
                                  detail::shape_string(h.shape) + "): no " +
                                  (k + 2 >= h.shape.size() ? "tokens" : "heads or layers"));
    AttentionComponent c;
    c.name = std::move(component_name);
    c.are_scores = are_scores;
    c.d_k = kDefaultDataDk;
    const std::size_t n = h.shape.size();
    c.layers = n == 4 ? static_cast<Index>(h.shape[0]) : 1;
    c.heads = n >= 3 ? static_cast<Index>(h.shape[n - 3]) : 1;
    const std::uint64_t count = view.matrix_count();
    require_memory(static_cast<double>(h.count()) * sizeof(float),
                   view.name() + ": " + detail::shape_string(h.shape) + " as float32",
                   "open a smaller file or raise the memory budget");
    c.mats.resize(static_cast<std::size_t>(count));
    const bool contiguous = !h.fortran_order;
    // Fortran order scatters every matrix over the whole file: all of it is needed at once.
    if (!contiguous) source.need(h.data_offset + h.count() * h.item_size);
    for (std::uint64_t s = 0; s < count; ++s) {
        if (contiguous) {
            const auto [off, len] = view.matrix_bytes(s);
            source.need(off + len);
        }
        view.copy_matrix(s, c.mats[static_cast<std::size_t>(s)]);
        if (contiguous) {
            const auto [off, len] = view.matrix_bytes(s);
            source.release(off, len);
        }
        report(progress, static_cast<double>(s + 1) / static_cast<double>(count));
    }
    const Index nq = static_cast<Index>(h.shape[n - 2]), nk = static_cast<Index>(h.shape[n - 1]);
    for (Index i = 0; i < nq; ++i)
        c.q_tokens.push_back(std::to_string(i));
    for (Index j = 0; j < nk; ++j)
        c.k_tokens.push_back(std::to_string(j));
    return c;
}

/// Whether one row is a weights row: no negative entry, summing to 1 (±1e-3) or 0. The sum is
/// kept in eight double lanes and the minimum in eight float lanes, so the loop vectorises (a
/// single running sum would serialise on the adder); the lanes change the sum by ~1e-16, far
/// inside the tolerance.
bool is_weights_row(const float* row, Index n) {
    constexpr Index kLanes = 8;
    double sum[kLanes] = {};
    float low[kLanes] = {};
    Index j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (Index k = 0; k < kLanes; ++k) {
            sum[k] += row[j + k];
            low[k] = std::min(low[k], row[j + k]);
        }
    double total = 0;
    float least = 0;
    for (; j < n; ++j) {
        total += row[j];
        least = std::min(least, row[j]);
    }
    for (Index k = 0; k < kLanes; ++k) {
        total += sum[k];
        least = std::min(least, low[k]);
    }
    return least >= 0.f && (std::abs(total - 1.0) <= 1e-3 || std::abs(total) <= 1e-6);
}

void check_weights(const AttentionComponent& c, const std::string& where) {
    std::size_t negative = 0, first = 0;
    Index at = -1;
    float value = 0.f;
    for (std::size_t s = 0; s < c.mats.size(); ++s) {
        const Matrix& m = c.mats[s];
        const float* d = m.data();
        for (Index i = 0; i < m.size(); ++i)
            if (d[i] < 0.f) {
                if (negative++ == 0) {
                    first = s;
                    at = i;
                    value = d[i];
                }
            }
    }
    if (negative == 0) return;
    const Matrix& m = c.mats[first];
    const std::uint64_t heads = static_cast<std::uint64_t>(std::max<Index>(1, c.heads));
    // Matrices are row-major: entry `at` is (at / cols, at % cols).
    const std::uint64_t index[] = {first / heads, first % heads,
                                   static_cast<std::uint64_t>(at / m.cols()),
                                   static_cast<std::uint64_t>(at % m.cols())};
    char number[32];
    std::snprintf(number, sizeof number, "%g", static_cast<double>(value));
    fail(where, "attention weights are post-softmax (≥ 0), but entry [layer, head, query, key] " +
                    detail::index_string(index) + " is " + number + " (" +
                    std::to_string(negative) + " of " + std::to_string(c.mats.size() * m.size()) +
                    " entries are negative); save raw scores as 'scores' instead, to which the "
                    "app's controls and softmax apply");
}

bool looks_like_weights(const std::vector<Matrix>& mats) {
    // This runs over every byte of a loaded weights tensor; raw scores usually fail on row 0.
    for (const Matrix& m : mats)
        for (Index i = 0; i < m.rows(); ++i)
            if (!is_weights_row(m.data() + i * m.cols(), m.cols())) return false;
    return true;
}

namespace {

AttentionData npy_attention(const NpyView& view, const std::string& name, Progress* progress,
                            const MappedFile* mapping) {
    AttentionComponent c = component_from_npy(view, "", false, progress, mapping);
    c.are_scores = !looks_like_weights(c.mats);
    c.name = c.are_scores ? "scores" : "attention";
    AttentionData data;
    data.source = name;
    data.components.push_back(std::move(c));
    return data;
}

}  // namespace

AttentionData load_npy_attention(const std::string& path, Progress* progress) {
    if (std::optional<AttentionData> mapped = mapped_npy_attention(path, progress))
        return std::move(*mapped);
    MappedFile file(path);
    file.advise_sequential();
    const std::string name = detail::base_name(path);
    NpyView view(file.bytes(), name);
    AttentionData data = npy_attention(view, name, progress, &file);
    data.source = path;
    return data;
}

AttentionData parse_npy_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress) {
    NpyView view(bytes, name);
    return npy_attention(view, name, progress, nullptr);
}

}  // namespace attn::io
