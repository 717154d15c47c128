// AttnScope core — the shorter forms a token may take where its whole text has no room (a
// narrow cell). GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

namespace attn {

/// The forms TOKEN may be written in where room is short, longest first: TOKEN itself, then a
/// bracketed special token's name without its brackets (`</s>` → "/s", `<pad>` → "pad",
/// `<0xA8>` → "0xA8", `<|endoftext|>` → "endoftext", `[CLS]` → "CLS"). A view writes the first
/// that fits and elides only the last: an elision of the brackets ("</…") names nothing.
std::vector<std::string> narrow_forms(const std::string& token);

}  // namespace attn
