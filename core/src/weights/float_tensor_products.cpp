// AttnScope core — a weight tensor's products: X · Wᵀ (a Linear's forward) and DY · W (its
// input gradient), from float32 values, from half-precision ones widened a tile at a time, or
// straight from BF16 values (simd::bf16_mul_t / bf16_mul) where the CPU runs those kernels.
// GPL-3.0-or-later.
#include <algorithm>
#include <optional>

#include "../util/parallel.hpp"
#include "attn/simd/bf16_product.hpp"
#include "attn/simd/half_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/safetensors.hpp"
#include "buffer_pool.hpp"

namespace attn::model {

namespace {

namespace fd = float_tensor_detail;

/// Rows of a half-precision matrix widened per product: about 2 MB of floats, so a tile stays
/// in the cache while the product reads it.
Index tile_rows(Index cols) {
    return std::max<Index>(16, (Index(1) << 19) / std::max<Index>(1, cols));
}

/// Products with at most this many rows (one retyped or generated token) are bound by memory:
/// a BF16 weight is read once, two bytes a value, and never written out widened.
constexpr Index kFusedRows = 4;

/// Rows of X below which a product is costed as if it had this many (see mul_t).
constexpr Index kMemoryBoundRows = 8;

}  // namespace

bool FloatTensor::direct_bf16() const {
    return half_ && bf16_ && cols_ > 0 && cols_ % 32 == 0 && simd::bf16_products();
}

Matrix FloatTensor::mul_t_few(const Matrix& x, StoredReads reads) const {
    const Index m = x.rows();
    Matrix out(m, rows_);
    // About 1 MB of stored rows at a time, read from the file (stored_rows).
    const Index chunk = std::max<Index>(1, (Index(1) << 19) / std::max<Index>(1, cols_));
    detail::parallel_rows(rows_, double(cols_) * double(m), [&](Index begin, Index count) {
        fd::Pooled<std::byte> staging(fd::staging_pool(), 0);
        for (Index r0 = begin; r0 < begin + count; r0 += chunk) {
            const Index nr = std::min(chunk, begin + count - r0);
            const auto* w =
                reinterpret_cast<const std::uint16_t*>(stored_rows(r0, nr, staging.v, reads));
            for (Index r = 0; r < nr; ++r)
                for (Index i = 0; i < m; ++i)
                    out(i, r0 + r) = simd::dot_bf16(w + r * cols_, x.row(i).data(), cols_);
        }
    });
    return out;
}

Matrix FloatTensor::mul_t(const Matrix& x, StoredReads reads) const {
    if (half_ && bf16_ && x.rows() <= kFusedRows) {
        Matrix out = mul_t_few(x, reads);
        refuse_non_finite_output(out);
        return out;
    }
    Matrix out(x.rows(), rows_);
    const bool direct = direct_bf16();
    // X in the order the direct kernel reads it, once for every thread's rows of W.
    std::optional<fd::Pooled<float>> reordered;
    if (direct) {
        reordered.emplace(fd::tile_pool(), std::size_t(x.size()));
        simd::bf16_reorder(x.data(), x.cols(), x.rows(), cols_, reordered->v.data());
    }
    // The weight's rows split across the threads (BLAS itself runs one thread a call in core):
    // each computes its block of output columns, widening its own tiles for a half matrix.
    // A product of a few rows reads the whole matrix for little arithmetic: bound by memory, whose
    // bandwidth one thread does not fill (here 21 GB/s of 30), it pays for a second thread from
    // a 512 × 512 matrix on (a decoder step's projections), not only from 2 M multiply-adds.
    const double cost = double(std::max<Index>(x.rows(), kMemoryBoundRows) * cols_);
    detail::parallel_rows(rows_, cost, [&](Index begin, Index count) {
        if (is_float()) {
            out.middleCols(begin, count).noalias() =
                x * matrix().middleRows(begin, count).transpose();
            return;
        }
        const Index step = std::min(count, tile_rows(cols_));
        if (direct) {  // the stored rows themselves, about 1 MB at a time
            fd::Pooled<std::byte> staging(fd::staging_pool(), 0);
            for (Index r0 = begin; r0 < begin + count; r0 += step) {
                const Index nr = std::min(step, begin + count - r0);
                const auto* w =
                    reinterpret_cast<const std::uint16_t*>(stored_rows(r0, nr, staging.v, reads));
                simd::bf16_mul_t(reordered->v.data(), x.rows(), cols_, w, cols_, nr,
                                 out.data() + r0, rows_);
            }
            return;
        }
        fd::Pooled<float> tile(fd::tile_pool(), std::size_t(step * cols_));
        for (Index r0 = begin; r0 < begin + count; r0 += step) {
            const Index nr = std::min(step, begin + count - r0);
            widen(r0, nr, 0, cols_, tile.v.data());
            const Eigen::Map<const Matrix> w(tile.v.data(), nr, cols_);
            out.middleCols(r0, nr).noalias() = x * w.transpose();
        }
    });
    refuse_non_finite_output(out);
    return out;
}

Matrix FloatTensor::mul(const Matrix& dy) const {
    if (dy.cols() != rows_)
        throw ArgumentError(what_ + ": a gradient of " + std::to_string(dy.cols()) +
                            " columns for " + std::to_string(rows_) + " rows");
    Matrix out(dy.rows(), cols_);
    if (rows_ == 0) return Matrix::Zero(dy.rows(), cols_);
    const bool direct = direct_bf16();
    // The output's columns split across the threads, each reading only its own columns of a
    // half or quantised matrix (straight from the mapping), a band of rows at a time, never the
    // whole matrix in float32; splits fall on whole blocks of 256 values (every GGUF block) when
    // the columns allow it, and on the kernel's blocks of 64 or 32 for a direct BF16 product.
    const Index unit = direct ? (cols_ % 64 == 0 ? 64 : 32) : (cols_ % 256 == 0 ? 256 : 1),
                units = cols_ / unit;
    // One text's few rows split too: on an idle machine both threads halve a saliency's
    // backward, though each packs the same rows (on a loaded one it measured slower).
    const double cost = double(dy.rows() * rows_ * unit);
    detail::parallel_rows(units, cost, [&](Index b, Index count) {
        const Index c0 = b * unit, nc = count * unit;
        if (is_float()) {
            out.middleCols(c0, nc).noalias() = dy * matrix().middleCols(c0, nc);
            return;
        }
        if (direct) {
            simd::bf16_mul(dy.data(), dy.cols(), dy.rows(), rows_, half_ + c0, cols_, nc,
                           out.data() + c0, cols_);
            return;
        }
        // Bands of the matrix's own size, not the thread's share: each output column then sums
        // the same bands in the same order on any number of threads (the same bits).
        const Index band = std::min(rows_, std::max<Index>(16, (Index(1) << 19) / cols_));
        for (Index r0 = 0; r0 < rows_; r0 += band) {
            const Index nr = std::min(band, rows_ - r0);
            const Matrix tile = block(r0, c0, nr, nc);
            if (r0 == 0)
                out.middleCols(c0, nc).noalias() = dy.middleCols(r0, nr) * tile;
            else
                out.middleCols(c0, nc).noalias() += dy.middleCols(r0, nr) * tile;
        }
    });
    // A direct product read values unchecked: a NaN or infinite weight makes its row's outputs
    // non-finite, and those rows are searched for it (block() checked each band it widened).
    if (direct && !simd::all_finite(out.data(), out.size())) refuse_rows(0, rows_);
    return out;
}

}  // namespace attn::model
