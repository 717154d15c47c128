// AttnScope core — attention loaded from a file. GPL-3.0-or-later.
#include "attn/attention/loaded_attention.hpp"

#include <string>

#include "attn/util/error.hpp"

namespace attn {

const Matrix& AttentionComponent::at(Index l, Index h) const {
    if (l < 0 || l >= layers || h < 0 || h >= heads)
        throw ArgumentError("Component \"" + name + "\" has " + std::to_string(layers) +
                            " layers and " + std::to_string(heads) + " heads; layer " +
                            std::to_string(l) + ", head " + std::to_string(h) + " does not exist.");
    const auto k = static_cast<std::size_t>(l * heads + h);
    if (rows)
        throw ArgumentError("Component \"" + name +
                            "\" is read from its file row by row; it holds no matrices.");
    if (k >= mats.size())
        throw ShapeError(
            "Component \"" + name + "\" holds " + std::to_string(mats.size()) +
            " matrices, fewer than layers x heads = " + std::to_string(layers * heads) + ".");
    return mats[k];
}

}  // namespace attn
