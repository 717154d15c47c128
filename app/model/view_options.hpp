// AttnScope — the display options the Views tab's views share (the view state holds them).
// GPL-3.0-or-later.
#pragma once

#include "attn/analysis/view_math.hpp"

/// Display options shared by the views of the Views tab (not part of the scene, no undo).
struct ViewOptions {
    attn::HeadReduce reduce = attn::HeadReduce::One;  ///< the focused head, or mean/max of all
    bool reverse = false;  ///< tokens view: how much each query attends to the selected key
    bool operator==(const ViewOptions&) const = default;
};
