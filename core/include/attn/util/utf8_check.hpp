// AttnScope core — whether bytes are UTF-8, for text that arrives as bytes (a command line).
// GPL-3.0-or-later.
#pragma once

#include <string_view>

namespace attn {

/// Throws FormatError "Invalid UTF-8 in the text at byte N (0xXX): why." at the first byte of
/// S that does not start a valid UTF-8 sequence.
void check_utf8(std::string_view s);

}  // namespace attn
