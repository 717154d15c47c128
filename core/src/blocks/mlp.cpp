// AttnScope core — the activations by the names configs give them. GPL-3.0-or-later.
#include "attn/blocks/mlp.hpp"

namespace attn::blocks {

bool activation_from_name(std::string_view name, Activation& out) {
    if (name == "gelu") {
        out = Activation::GeluExact;
    } else if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
        out = Activation::GeluTanh;
    } else if (name == "silu" || name == "swish") {
        out = Activation::Silu;
    } else if (name == "relu") {
        out = Activation::Relu;
    } else {
        return false;
    }
    return true;
}

}  // namespace attn::blocks
