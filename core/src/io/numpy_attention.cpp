// AttnScope core — attention components from NumPy arrays (.npy). GPL-3.0-or-later.
#include <cmath>

#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

using detail::fail;

AttentionComponent component_from_npy(const NpyView& view, std::string component_name,
                                      bool are_scores, Progress* progress,
                                      const MappedFile* mapping) {
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
    c.mats.resize(static_cast<std::size_t>(count));
    const bool contiguous = !h.fortran_order;
    for (std::uint64_t s = 0; s < count; ++s) {
        view.copy_matrix(s, c.mats[static_cast<std::size_t>(s)]);
        if (mapping && contiguous) {
            const auto [off, len] = view.matrix_bytes(s);
            mapping->release(off, len);
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

bool looks_like_weights(const std::vector<Matrix>& mats) {
    // One pass over each row (this runs over every byte of a loaded tensor).
    for (const Matrix& m : mats)
        for (Index i = 0; i < m.rows(); ++i) {
            const float* row = m.data() + i * m.cols();
            double sum = 0;
            bool negative = false;
            for (Index j = 0; j < m.cols(); ++j) {
                negative |= row[j] < 0.f;
                sum += row[j];
            }
            if (negative || (std::abs(sum - 1.0) > 1e-3 && std::abs(sum) > 1e-6)) return false;
        }
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
