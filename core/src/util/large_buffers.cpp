// AttnScope core — n × n result matrices placed on transparent huge pages. GPL-3.0-or-later.
#include <cstdint>

#include "attn/util/heap.hpp"
#include "large_buffers.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn::detail {

namespace {

/// Asks the kernel to back the 2 MiB-aligned interior of [p, p + bytes) with huge pages. A fresh
/// n × n matrix is page-faulted in as it is first written; with 4 KiB pages that is one fault
/// per 1024 floats, and the faults (not the zeroing) were a third of a forward pass's time at
/// n = 2048 (docs/speed.md). With huge pages it is one per 512 Ki floats. Where the kernel has
/// THP off, or the memory is already touched, this changes nothing.
void prefer_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace

void keep_freed_blocks() {
#if defined(__GLIBC__)
    // glibc serves a block above its mmap threshold (128 KiB, raised to the largest block freed
    // so far) with a fresh mapping, and gives freed heap memory back above its trim threshold
    // (twice that): a forward pass's 1 MiB heads (n = 512) are unmapped or trimmed when the
    // result is freed, and the next result page-faults all of them in again, 4 KiB at a time —
    // on a VM, where a fault costs several µs, 1.5× PyTorch's time at n = 512, whose one 12 MiB
    // weights tensor moves the thresholds past its whole result. Blocks up to 32 MiB stay in
    // the heap and memory returns to the system past 256 MiB free, so the next result reuses
    // the pages of the last (as the app's main also asks, before anything is allocated).
    static const bool once = [] {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        return true;
    }();
    (void)once;
#endif
}

void resize_large(Matrix& m, Index rows, Index cols) {
    keep_freed_blocks();
    const float* before = m.data();
    m.resize(rows, cols);
    const auto bytes = static_cast<std::size_t>(m.size()) * sizeof(float);
    // Only a new block is untouched; at least two huge pages, or there is no aligned interior.
    if (m.data() != before && bytes >= (std::size_t(4) << 20)) prefer_huge_pages(m.data(), bytes);
}

}  // namespace attn::detail

namespace attn {

void keep_freed_blocks() {
    detail::keep_freed_blocks();
}

}  // namespace attn
