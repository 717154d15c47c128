// AttnScope core — writing a head census (`attnscope census`). GPL-3.0-or-later.
//
// .csv: header
// "layer_from_0,head_from_0,pattern,previous_token,self,first_token,local,broad,induction", then
//   one line per layer × head (layers and heads from 0); an undefined score is an empty field.
// .json: {"format": "attnscope-census", "version": 1, "layers": L, "heads": H,
//   "patterns": ["previous-token", …], "heads_census": [{"layer", "head", "pattern",
//   "scores": {"previous_token": …, …}}, …]}; an undefined score is null.
#pragma once

#include <string>

#include "attn/analysis/census.hpp"

namespace attn::io {

/// The census as CSV text (the layout above).
std::string census_csv(const Census& census);
/// The census as a JSON document (the layout above).
std::string census_json(const Census& census);
/// Writes the census as .csv or .json by the extension; others throw ArgumentError.
void write_census(const std::string& path, const Census& census);

}  // namespace attn::io
