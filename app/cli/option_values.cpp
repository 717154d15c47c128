// AttnScope — numbers and text of command-line option values, read strictly. GPL-3.0-or-later.
#include "cli/option_values.hpp"

#include <QCommandLineParser>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <string_view>

#include "attn/util/error.hpp"
#include "attn/util/utf8_check.hpp"
#include "cli/cli_tr.hpp"

namespace cli {

std::optional<double> decimalNumber(const QString& text) {
    // QString::toDouble alone also takes "nan", "inf" and surrounding blanks.
    static const QRegularExpression re(
        QStringLiteral("^[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?$"));
    if (!re.match(text).hasMatch()) return std::nullopt;
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<qulonglong> decimalUnsigned(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^[0-9]+$"));
    if (!re.match(text).hasMatch()) return std::nullopt;
    bool ok = false;
    const qulonglong v = text.toULongLong(&ok, 10);
    if (!ok) return std::nullopt;
    return v;
}

QString repeatedOption(const QCommandLineParser& p) {
    const QStringList names = p.optionNames();  // a name given twice is listed twice
    for (const QString& name : names) {
        const int times = int(names.count(name));
        const QStringList values = p.values(name);
        if (times < 2 && values.size() < 2) continue;
        const QString dashes = name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--");
        if (values.isEmpty())  // a switch: the second one changes nothing, so it was a slip
            return tr("%1%2 is given %3 times; give it once").arg(dashes, name).arg(times);
        return tr("%1%2 is given %3 times (%4); give it once")
            .arg(dashes, name)
            .arg(std::max<qsizetype>(times, values.size()))
            .arg(values.join(QStringLiteral(", ")));
    }
    return {};
}

QString invalidUtf8Argument(int argc, const char* const* argv) {
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        try {
            attn::check_utf8(arg);
        } catch (const attn::FormatError& e) {
            // Name the option: "--text=…" itself, or the option before a separate value.
            QString option = QStringLiteral("argument %1").arg(i - 1);
            const std::size_t eq = arg.find('=');
            if (arg.starts_with('-') && eq != std::string_view::npos) {
                option = QString::fromUtf8(arg.substr(0, eq));
                // The offset is the value's: the bytes after "--text=".
                std::string value(arg.substr(eq + 1));
                try {
                    attn::check_utf8(value);
                } catch (const attn::FormatError& inner) {
                    return option + QStringLiteral(": ") + QString::fromUtf8(inner.what());
                }
            } else if (i > 2 && argv[i - 1][0] == '-') {
                option = QString::fromUtf8(argv[i - 1]);
            }
            return option + QStringLiteral(": ") + QString::fromUtf8(e.what());
        }
    }
    return {};
}

}  // namespace cli
