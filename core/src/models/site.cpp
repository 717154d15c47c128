// AttnScope core — the names of a run's components. GPL-3.0-or-later.
#include "attn/models/site.hpp"

namespace attn::model {

const char* component_name(Component component) {
    return component == Component::Encoder   ? "encoder"
           : component == Component::Decoder ? "decoder"
                                             : "cross";
}

std::optional<Component> component_named(std::string_view name) {
    for (const Component c : {Component::Encoder, Component::Decoder, Component::Cross})
        if (name == component_name(c)) return c;
    return std::nullopt;
}

}  // namespace attn::model
