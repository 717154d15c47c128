// AttnScope core — large result matrices: huge pages, freed blocks kept (not installed).
// GPL-3.0-or-later.
#pragma once

#include "attn/util/types.hpp"

namespace attn::detail {

/// m.resize(rows, cols); a newly allocated block of at least 4 MiB is advised onto transparent
/// huge pages before anything touches it (large_buffers.cpp says why).
void resize_large(Matrix& m, Index rows, Index cols);

/// Once per process: freed large blocks stay in the heap for the next result instead of being
/// unmapped and page-faulted in again (large_buffers.cpp says why).
void keep_freed_blocks();

}  // namespace attn::detail
