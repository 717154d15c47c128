// AttnScope core — n × n result matrices placed on transparent huge pages. GPL-3.0-or-later.
#include <cstdint>

#include "detail.hpp"

#if defined(__linux__)
#include <sys/mman.h>
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

void resize_large(Matrix& m, Index rows, Index cols) {
    const float* before = m.data();
    m.resize(rows, cols);
    const auto bytes = static_cast<std::size_t>(m.size()) * sizeof(float);
    // Only a new block is untouched; at least two huge pages, or there is no aligned interior.
    if (m.data() != before && bytes >= (std::size_t(4) << 20)) prefer_huge_pages(m.data(), bytes);
}

}  // namespace attn::detail
