// AttnScope core — how the process heap keeps large result blocks. GPL-3.0-or-later.
#pragma once

namespace attn {

/// Keeps freed blocks up to 32 MiB in glibc's heap (returned past 256 MiB free), so that a new
/// result reuses the pages of the last instead of page-faulting them in again; once per process.
void keep_freed_blocks();

}  // namespace attn
