// AttnScope — exit codes of the command line, as documented in README "Command line".
// GPL-3.0-or-later.
#pragma once

namespace cli {

inline constexpr int kExitOk = 0;      ///< done
inline constexpr int kExitUsage = 1;   ///< bad arguments or option values
inline constexpr int kExitInput = 2;   ///< the input file is missing, unreadable or malformed
inline constexpr int kExitOutput = 3;  ///< the output could not be rendered or written
/// A request for more memory (--memory-budget) or disk than available, refused up front.
inline constexpr int kExitResource = 4;
/// A defect: an exception no handler expected, reported as a message instead of a crash
/// (70 is EX_SOFTWARE of sysexits.h).
inline constexpr int kExitInternal = 70;

}  // namespace cli
