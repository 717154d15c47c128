// AttnScope core — the attention block's masks. GPL-3.0-or-later.
#include "attn/blocks/attention.hpp"

#include <algorithm>

namespace attn::blocks {

MaskSpec causal_window(Index n, Index window) {
    MaskSpec m;
    m.kind = MaskKind::Custom;
    m.custom = BoolMatrix::Constant(n, n, false);
    for (Index i = 0; i < n; ++i)
        for (Index j = std::max<Index>(0, i - window + 1); j <= i; ++j)
            m.custom(i, j) = true;
    return m;
}

}  // namespace attn::blocks
