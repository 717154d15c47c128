// AttnScope — entry point. GPL-3.0-or-later.
#include <QCoreApplication>
#include <QTextStream>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "attn/util/heap.hpp"
#include "attn/util/threads.hpp"
#include "cli/cli.hpp"
#include "run_gui.hpp"

namespace {

/// Backs the first `bytes` of the heap's free space with transparent huge pages.
///
/// A render or a forward pass writes tens of MB of fresh matrices and paint buffers; with 4 KiB
/// pages each of them is a page fault (15 000 faults, ~15 ms of a 140 ms `attnscope render`).
/// The system's THP mode is usually "madvise", so the heap gets none unless asked, and glibc
/// only asks when started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1. Growing the heap once and
/// advising the new range does the same for the allocations that matter; only touched 2 MiB
/// pages become resident, and a kernel without THP ignores the advice.
void adviseHugeHeap(std::size_t bytes) {
    constexpr std::uintptr_t kHuge = 2u << 20;
    // A small block with `bytes` of top padding grows the brk heap by at least that much.
    mallopt(M_TOP_PAD, static_cast<int>(bytes));
    void* block = std::malloc(kHuge);
    mallopt(M_TOP_PAD, 128 << 10);  // glibc's default again
    if (!block) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(block) + kHuge - 1) & ~(kHuge - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHuge - 1);
    // Only a range this call just added: under a sanitizer's allocator the block is not on the
    // brk heap at all, and the range between them must not be touched.
    if (end > begin && end - begin <= bytes + 2 * kHuge)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    std::free(block);  // back to the top of the heap, which M_TRIM_THRESHOLD keeps
}

}  // namespace

int main(int argc, char** argv) {
    // Every recomputation allocates the same few large stage matrices (n × n per head); core's
    // one rule keeps their freed pages in the heap. Set before the huge-page heap below, whose
    // range the trim threshold then keeps.
    attn::keep_freed_blocks();
    // Before anything else runs: BLAS's idle threads would spin beside the model's opening.
    attn::use_own_threads();
    adviseHugeHeap(std::size_t{128} << 20);
    // Set once, before anything reads QSettings (GUI and command line alike).
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
    // Command-line subcommands (`attnscope render|compute …`) are dispatched here, before the
    // GUI starts. Whatever escapes both is a message and exit code 70, never an abort.
    QTextStream err(stderr);
    return cli::guardUnexpected(
        [&] {
            if (const std::optional<int> code = cli::dispatch(argc, argv)) return *code;
            return runGui(argc, argv);
        },
        err);
}
