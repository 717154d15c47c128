// AttnScope core — progress reporting. GPL-3.0-or-later.
#include "attn/util/progress.hpp"

#include "attn/util/error.hpp"

namespace attn {

void report(Progress* progress, double fraction) {
    if (!progress) return;
    progress->update(fraction);
    if (progress->cancelled()) throw Cancelled();
}

}  // namespace attn
