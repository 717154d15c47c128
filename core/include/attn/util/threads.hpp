// AttnScope core — who runs core's threads: core splits its work itself, BLAS runs one thread a
// call. GPL-3.0-or-later.
#pragma once

namespace attn {

/// Makes every BLAS call single-threaded and stops the BLAS library's idle worker threads; once
/// per process (core calls it before its first parallel loop; a program may call it first).
void use_own_threads();

}  // namespace attn
