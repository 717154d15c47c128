// AttnScope core — one coordinate for an attention site: the component, layer and head of a
// run, and the edge an intervention removes there. GPL-3.0-or-later.
#pragma once

#include <compare>
#include <optional>
#include <string_view>

namespace attn::model {

/// The attentions of a run: an encoder–decoder has all three; a model of one stack has Decoder.
enum class Component { Encoder, Decoder, Cross };

/// The component of every site of a model of one stack (GPT-2, Llama, BERT …): its hooks,
/// interventions, CLI sites (L.H) and sessions name no component, so one value stands for the
/// stack whatever the family calls it (BERT's is an encoder in name: Decoder still, since a
/// second name for the one stack would make two sites of one head).
inline constexpr Component kSingleStack = Component::Decoder;

/// COMPONENT's name in CLI sites (PART.L.H), array keys and sessions: "encoder", "decoder" or
/// "cross".
const char* component_name(Component component);

/// The component NAME names (component_name's inverse); none for any other text.
std::optional<Component> component_named(std::string_view name);

/// One attention head of a run: component, then layer and head, both from 0.
struct Site {
    Component component = kSingleStack;
    int layer = 0, head = 0;
    auto operator<=>(const Site&) const = default;
};

/// One removed attention edge: in SITE, query QUERY no longer sees key KEY (QUERY −1: no query
/// sees KEY, the whole key column); each changed row is renormalised. For Cross, queries are
/// target positions and keys source positions.
struct Knockout {
    Site site;
    int query = -1;  ///< −1: every query
    int key = 0;
    auto operator<=>(const Knockout&) const = default;
};

}  // namespace attn::model
