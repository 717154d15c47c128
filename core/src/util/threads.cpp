// AttnScope core — BLAS made single-threaded, its idle workers stopped. GPL-3.0-or-later.
#include "attn/util/threads.hpp"

#ifdef ATTN_OPENBLAS
#include <dlfcn.h>

extern "C" void openblas_set_num_threads(int num_threads);
#endif

namespace attn {

void use_own_threads() {
#ifdef ATTN_OPENBLAS
    static const bool once = [] {
        // Core splits its work across threads itself (projection rows, heads): OpenBLAS's own
        // threads inside each of those would nest (2 × 2 on 2 cores) and spin-wait for each
        // other, which measured 2.2× the CPU time at n = 512 (docs/speed.md).
        openblas_set_num_threads(1);
        // OpenBLAS's pthreads build starts a worker per extra core when it loads, and each
        // spins on sched_yield for 2^28 cycles (≈ 0.1 s) before it sleeps: on 2 cores it takes
        // one of them while a model opens. Stop them (a threaded call would start them again).
        // Looked up, not linked: OpenBLAS's OpenMP and serial builds have no such function.
        using Shutdown = int (*)();
        if (const auto stop =
                reinterpret_cast<Shutdown>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_")))
            stop();
        return true;
    }();
    (void)once;
#endif
}

}  // namespace attn
