// AttnScope core — attention payloads in JSON: BertViz (every form) and CircuitsVis.
// GPL-3.0-or-later.
//
// Accepted layouts (extra keys are ignored everywhere):
//  - BertViz list form: {"attention": [{"name": "Encoder"|"Decoder"|"Cross"|null,
//    "attn": [L][H][Nq][Nk], "left_text": [Nq], "right_text": [Nk]}, …]} — one component each;
//  - BertViz filter-keyed form: {"attention": {"all"|"aa"|"ab"|"ba"|"bb": {"attn", "left_text",
//    "right_text"}}, …} — one component per key, named after it, in BertViz's order (all, aa,
//    ab, ba, bb, then others); "default_filter" names the component to open on (else "all");
//  - CircuitsVis: {"attention": [H][dest][src] (or [dest][src]), "tokens": [n]}.
// All are post-softmax weights. Errors name the file and the JSON path, e.g.
// "x.json: attention[0].attn[3][1][7] has 9 entries, expected 10".
#pragma once

#include <string>
#include <string_view>

#include "attn/attention/loaded_attention.hpp"
#include "attn/util/progress.hpp"

namespace attn::io {

/// Parses a BertViz or CircuitsVis payload (UTF-8, optional BOM); name is used in messages.
AttentionData parse_attention_json(std::string_view text, const std::string& name,
                                   Progress* progress = nullptr);

/// Loads a BertViz or CircuitsVis payload from a file.
AttentionData load_attention_json(const std::string& path, Progress* progress = nullptr);

/// The title BertViz shows for a component: "all" → "All tokens", "aa" → "Sentence A → A",
/// "ab" → "Sentence A → B", "ba" → "Sentence B → A", "bb" → "Sentence B → B"; others unchanged.
std::string component_title(const std::string& name);

/// Why a component's rows need not sum to 1, or "" when they do: BertViz's sentence-pair
/// blocks (aa, ab, ba, bb) are slices of the attention over every token, so each row holds
/// only the weight its query gives to one sentence.
std::string component_row_note(const std::string& name);

}  // namespace attn::io
