// AttnScope core — a weight tensor as float32: mapped, widened once, or widened tile by tile
// from the half-precision values in the mapped file. GPL-3.0-or-later.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

#include "../util/parallel.hpp"
#include "attn/simd/half_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"
#include "attn/weights/safetensors.hpp"
#include "buffer_pool.hpp"

namespace attn::model {

namespace float_tensor_detail {

/// Asks for transparent huge pages under a large widened tensor before it is written: a 2 GB
/// model then faults in a thousand pages, not half a million (measured: seconds of system time).
void advise_huge_pages(void* data, std::size_t bytes) {
    constexpr std::uintptr_t page = 4096;
    if (bytes < (4u << 20)) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(page - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// Widens COUNT values from IN to OUT; one loop per type, without a branch per element.
void widen_run(const std::uint16_t* in, Index count, bool bf16, float* out) {
    if (bf16)
        simd::widen_bf16(in, count, out);
    else
        simd::widen_f16(in, count, out);
}

/// The index of the first NaN or infinity among N half-precision values (all exponent bits
/// set), or −1; the bits are tested without widening.
Index first_non_finite(const std::uint16_t* v, Index n, bool bf16) {
    const std::uint16_t exp = bf16 ? 0x7f80 : 0x7c00;
    // A 16-bit count per chunk (a chunk is shorter than 2¹⁶) is what the compiler vectorises; a
    // boolean "any" is not, and this scan reads every byte of the model when it opens.
    constexpr Index chunk = 1 << 15;
    for (Index at = 0; at < n; at += chunk) {
        const Index end = std::min(n, at + chunk);
        std::uint16_t hits = 0;
        for (Index i = at; i < end; ++i)
            hits += std::uint16_t((v[i] & exp) == exp);
        if (hits)
            for (Index i = at; i < end; ++i)
                if ((v[i] & exp) == exp) return i;
    }
    return -1;
}

/// Whether the N floats at V are all finite: the dispatched kernel over slices on every thread.
/// For a mapped tensor this is the first touch of its pages, which both threads then fault in.
bool all_finite(const float* v, Index n) {
    constexpr Index slice = 1 << 16;
    std::atomic<bool> ok{true};
    detail::parallel_rows((n + slice - 1) / slice, double(slice), [&](Index begin, Index count) {
        for (Index s = begin; s < begin + count && ok; ++s)
            if (!simd::all_finite(v + s * slice, std::min(slice, n - s * slice))) ok = false;
    });
    return ok;
}

/// Throws NonFiniteError naming WHAT and the first of the N floats at V that is not finite
/// (AT: the index of V[0] in the tensor); returns when there is none.
void refuse_non_finite(const float* v, Index n, Index at, const std::string& what) {
    for (Index i = 0; i < n; ++i)
        if (!std::isfinite(v[i]))
            throw NonFiniteError(what + " has a non-finite value (" + std::to_string(v[i]) +
                                 ") at element " + std::to_string(at + i) + ".");
}

}  // namespace float_tensor_detail

const std::byte* FloatTensor::stored_rows(Index r0, Index nr, std::vector<std::byte>& staging,
                                          StoredReads reads) const {
    const std::size_t per_row = blocks_ ? row_bytes_ : std::size_t(cols_) * 2;
    const std::byte* base = blocks_ ? blocks_ : reinterpret_cast<const std::byte*>(half_);
    const auto stored = [&](Index r) {
        return std::size_t(order_.empty() ? r : order_[std::size_t(r)]);
    };
    if (!file_ || reads == StoredReads::InPlace) {
        if (order_.empty()) return base + std::size_t(r0) * per_row;
        if (staging.size() < std::size_t(nr) * per_row) staging.resize(std::size_t(nr) * per_row);
        for (Index r = 0; r < nr; ++r)
            std::memcpy(staging.data() + std::size_t(r) * per_row, base + stored(r0 + r) * per_row,
                        per_row);
        return staging.data();
    }
    if (staging.size() < std::size_t(nr) * per_row) staging.resize(std::size_t(nr) * per_row);
    if (order_.empty()) {
        file_->read(base + std::size_t(r0) * per_row, std::size_t(nr) * per_row, staging.data());
        return staging.data();
    }
    for (Index r = 0; r < nr; ++r)
        file_->read(base + stored(r0 + r) * per_row, per_row,
                    staging.data() + std::size_t(r) * per_row);
    return staging.data();
}

FloatTensor::FloatTensor(const TensorInfo& tensor, Index rows, Index cols, const std::string& what,
                         Keep keep)
    : what_(what), rows_(rows), cols_(cols) {
    namespace fd = float_tensor_detail;
    if (tensor.dtype == DType::Other && tensor.quantised < 0)
        throw FormatError(what + " is " + tensor.dtype_name +
                          "; AttnScope reads F32, F16 and BF16");
    // The shape itself, not only its element count: a transposed [3d, d] weight has as many
    // values as [d, 3d] and would silently compute something else. Vectors (rows = 1) are
    // [cols] as Hugging Face writes them, or [1, cols].
    const bool vector = rows == 1 && tensor.shape == std::vector<std::int64_t>{cols};
    if (!vector && tensor.shape != std::vector<std::int64_t>{rows, cols})
        throw ShapeError(what + " has shape " + shape_text(tensor.shape) + ", expected " +
                         (rows == 1 ? shape_text({cols}) : shape_text({rows, cols})));
    if (tensor.quantised >= 0) {
        keep_blocks(tensor, what);
        return;
    }
    const Index n = rows * cols;
    const std::byte* in = tensor.bytes.data();
    const bool half = tensor.dtype != DType::F32;
    if (half && keep == Keep::AsStored && rows > 1 &&
        reinterpret_cast<std::uintptr_t>(in) % alignof(std::uint16_t) == 0) {
        // Not scanned here: a pass over every value would read the whole model once more
        // before its first product. A NaN or infinite weight makes the outputs of its row
        // non-finite in every product, so each product's output is checked instead, and the
        // rows behind a non-finite output are searched for the value to name (refuse_rows).
        half_ = reinterpret_cast<const std::uint16_t*>(in);
        bf16_ = tensor.dtype == DType::BF16;
        file_ = tensor.file;
        return;
    }
    if (!half && reinterpret_cast<std::uintptr_t>(in) % alignof(float) == 0) {
        mapped_ = reinterpret_cast<const float*>(in);
    } else {
        owned_.resize(rows, cols);
        float* out = owned_.data();
        fd::advise_huge_pages(out, std::size_t(n) * 4);
        if (!half) {
            std::memcpy(out, in, std::size_t(n) * 4);
        } else {
            // The mapping may be odd-aligned: copy a run of halves before widening it.
            std::vector<std::uint16_t> h(std::size_t(std::min<Index>(n, 1 << 16)));
            for (Index at = 0; at < n; at += Index(h.size())) {
                const Index count = std::min<Index>(Index(h.size()), n - at);
                if (tensor.file)  // read, not faulted in from the mapping (MappedFile::read)
                    tensor.file->read(in + 2 * at, std::size_t(count) * 2, h.data());
                else
                    std::memcpy(h.data(), in + 2 * at, std::size_t(count) * 2);
                fd::widen_run(h.data(), count, tensor.dtype == DType::BF16, out + at);
                // Checked while the run is in the cache, not by a second pass.
                if (!simd::all_finite(out + at, count))
                    fd::refuse_non_finite(out + at, count, at, what);
            }
            return;
        }
    }
    if (tensor.finite) return;  // checked with the rest of its file when it opened
    const float* v = owned_.size() ? owned_.data() : mapped_;
    if (!fd::all_finite(v, n)) fd::refuse_non_finite(v, n, 0, what);
}

FloatTensor::FloatTensor(const TensorInfo& tensor, Index rows, Index cols, const std::string& what,
                         Keep keep, std::vector<Index> order)
    : FloatTensor(tensor, rows, cols, what, keep) {
    if (order.empty()) return;
    if (Index(order.size()) != rows_)
        throw ArgumentError(what + ": a row order of " + std::to_string(order.size()) +
                            " rows for " + std::to_string(rows_));
    for (const Index r : order)
        if (r < 0 || r >= rows_) throw ArgumentError(what + ": a row order past the rows");
    if (blocks_) {
        order_ = std::move(order);
        return;
    }
    // Stored in float (or half) precision: the rows are put in their order once.
    Matrix reordered(rows_, cols_);
    for (Index r = 0; r < rows_; ++r)
        reordered.row(r) = row(order[std::size_t(r)]).transpose();
    owned_ = std::move(reordered);
    mapped_ = nullptr;
    half_ = nullptr;
}

void FloatTensor::keep_blocks(const TensorInfo& tensor, const std::string& what) {
    const auto type = GgufType(std::uint32_t(tensor.quantised));
    const std::size_t per = gguf_block_values(type), bytes = gguf_block_bytes(type);
    if (per == 0 || std::size_t(cols_) % per != 0)
        throw ShapeError(what + "'s rows of " + std::to_string(cols_) + " values are not whole " +
                         gguf_type_name(tensor.quantised) + " blocks");
    row_bytes_ = std::size_t(cols_) / per * bytes;
    if (tensor.bytes.size() != row_bytes_ * std::size_t(rows_))
        throw ShapeError(what + " holds " + std::to_string(tensor.bytes.size()) +
                         " bytes, expected " + std::to_string(row_bytes_ * std::size_t(rows_)));
    blocks_ = tensor.bytes.data();
    block_type_ = std::uint32_t(tensor.quantised);
    file_ = tensor.file;
    // A matrix's scales are checked through its products' outputs, as a half matrix's values.
    if (rows_ == 1) {  // a vector (a norm's gain, a bias) is read whole, decoded once
        refuse_rows(0, 1);
        owned_.resize(1, cols_);
        gguf_dequantize(type, blocks_, owned_.data(), std::size_t(cols_));
        blocks_ = nullptr;
    }
}

void FloatTensor::refuse_rows(Index r0, Index nr) const {
    namespace fd = float_tensor_detail;
    for (Index r = r0; r < r0 + nr; ++r) {
        if (half_) {
            const Index bad = fd::first_non_finite(half_ + r * cols_, cols_, bf16_);
            if (bad < 0) continue;
            float value = 0;
            fd::widen_run(half_ + r * cols_ + bad, 1, bf16_, &value);
            throw NonFiniteError(what_ + " has a non-finite value (" + std::to_string(value) +
                                 ") at element " + std::to_string(r * cols_ + bad) + ".");
        }
        if (!blocks_) continue;
        const auto type = GgufType(block_type_);
        const std::size_t per = gguf_block_values(type),
                          in_row = row_bytes_ / gguf_block_bytes(type);
        const std::size_t stored =
            order_.empty() ? std::size_t(r) : std::size_t(order_[std::size_t(r)]);
        const std::int64_t b = gguf_first_bad_block(type, blocks_ + stored * row_bytes_, in_row);
        if (b < 0) continue;
        const std::size_t bad = stored * in_row + std::size_t(b);
        throw NonFiniteError(what_ + " has a non-finite scale in block " + std::to_string(bad) +
                             " (values " + std::to_string(bad * per) + " to " +
                             std::to_string((bad + 1) * per - 1) + ").");
    }
}

void FloatTensor::refuse_non_finite_output(const Matrix& out) const {
    if (is_float() || simd::all_finite(out.data(), out.size())) return;
    // Only the rows whose outputs are not finite can hold the value; none does when the input
    // itself overflowed, which the caller reports in its own terms.
    for (Index r = 0; r < out.cols(); ++r)
        if (!out.col(r).allFinite()) refuse_rows(r, 1);
}

Eigen::Map<const Matrix> FloatTensor::matrix() const {
    if (!is_float()) throw Error("a half-precision weight was read as float32 without widening");
    return {owned_.size() ? owned_.data() : mapped_, rows_, cols_};
}

void FloatTensor::widen(Index r0, Index nr, Index c0, Index nc, float* out) const {
    namespace fd = float_tensor_detail;
    if (c0 == 0 && nc == cols_) {
        // Whole rows: their stored bytes at once, then widened or decoded.
        fd::Pooled<std::byte> staging(fd::staging_pool(), 0);
        const std::byte* src = stored_rows(r0, nr, staging.v);
        if (!blocks_) {
            fd::widen_run(reinterpret_cast<const std::uint16_t*>(src), nr * cols_, bf16_, out);
            return;
        }
        const auto type = GgufType(block_type_);
        for (Index r = 0; r < nr; ++r)
            gguf_dequantize(type, src + std::size_t(r) * row_bytes_, out + r * nc,
                            std::size_t(cols_));
        return;
    }
    if (blocks_) {
        // Only the blocks that hold columns C0 … C0 + NC are decoded, one row at a time.
        const auto type = GgufType(block_type_);
        const Index per = Index(gguf_block_values(type)), bytes = Index(gguf_block_bytes(type));
        const Index b0 = c0 / per, b1 = (c0 + nc + per - 1) / per;
        const bool whole = c0 == b0 * per && nc == (b1 - b0) * per;
        std::vector<float> run(whole ? 0 : std::size_t((b1 - b0) * per));
        for (Index r = 0; r < nr; ++r) {
            const Index stored = order_.empty() ? r0 + r : order_[std::size_t(r0 + r)];
            const std::byte* src = blocks_ + std::size_t(stored) * row_bytes_ + b0 * bytes;
            float* dst = whole ? out + r * nc : run.data();
            gguf_dequantize(type, src, dst, std::size_t((b1 - b0) * per));
            if (!whole) std::copy_n(run.data() + (c0 - b0 * per), nc, out + r * nc);
        }
        return;
    }
    for (Index r = 0; r < nr; ++r)
        float_tensor_detail::widen_run(half_ + (r0 + r) * cols_ + c0, nc, bf16_, out + r * nc);
}

Vector FloatTensor::row(Index r) const {
    if (is_float()) return matrix().row(r).transpose();
    Vector v(cols_);
    widen(r, 1, 0, cols_, v.data());
    if (!simd::all_finite(v.data(), cols_)) refuse_rows(r, 1);
    return v;
}

Matrix FloatTensor::block(Index r0, Index c0, Index nr, Index nc) const {
    if (is_float()) return matrix().block(r0, c0, nr, nc);
    Matrix out(nr, nc);
    widen(r0, nr, c0, nc, out.data());
    if (!simd::all_finite(out.data(), out.size())) refuse_rows(r0, nr);
    return out;
}

}  // namespace attn::model
