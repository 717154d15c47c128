// AttnScope — numbers and text of command-line option values, read strictly. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <optional>

class QCommandLineParser;

namespace cli {

/// TEXT as a finite decimal number ("2", "-0.5", "1.5e3"); nothing for "0x10", "nan", "inf",
/// blanks around the digits or anything else.
std::optional<double> decimalNumber(const QString& text);

/// TEXT as a decimal integer of ASCII digits only, within qulonglong.
std::optional<qulonglong> decimalUnsigned(const QString& text);

/// The first option given more than once, as "--mask is given 2 times (none, causal); give it
/// once" (the last would win silently) or "--greedy is given 2 times; give it once"; empty
/// when each is given once.
QString repeatedOption(const QCommandLineParser& p);

/// The first of argv[2…] whose bytes are not UTF-8, as "--text: Invalid UTF-8 … at byte N
/// (0xXX): …", named by its option; empty when every argument is UTF-8. Qt would replace
/// such bytes by U+FFFD before the parser sees them.
QString invalidUtf8Argument(int argc, const char* const* argv);

}  // namespace cli
