// AttnScope — token labels on plot axes. GPL-3.0-or-later.
#include "views/token_labels.hpp"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "attn/io/attention_json.hpp"

QString tokenText(const std::string& token) {
    QString s = QString::fromStdString(token);
    if (!s.trimmed().isEmpty()) return s;
    if (s.isEmpty()) return QStringLiteral("␣");
    s.replace(QLatin1Char(' '), QStringLiteral("␣"));
    s.replace(QLatin1Char('\t'), QStringLiteral("⇥"));
    s.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    s.replace(QLatin1Char('\r'), QString());
    return s.isEmpty() ? QStringLiteral("⏎") : s;
}

QString componentTitle(const std::string& name, int index) {
    if (name.empty()) return QCoreApplication::translate("tokens", "%1 (unnamed)").arg(index);
    return QString::fromStdString(attn::io::component_title(name));
}

QString elideToken(const std::string& token, int maxChars) {
    QString s = tokenText(token);
    s.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    if (s.size() <= maxChars) return s;
    return s.left(std::max(1, maxChars - 1)) + QStringLiteral("…");
}

void setTokenTicks(QCPAxisTickerText& ticker, const std::vector<std::string>& tokens,
                   double axisPixels, double minSpacingPx) {
    const int n = int(tokens.size());
    QMap<double, QString> ticks;
    if (n > 0) {
        const double perToken = std::max(axisPixels, 1.0) / n;
        const int stride = std::max(1, int(std::ceil(minSpacingPx / perToken)));
        for (int i = 0; i < n; i += stride) {
            QString label = elideToken(tokens[std::size_t(i)]);
            if (stride > 1) label += QStringLiteral(" ·%1").arg(i);
            ticks.insert(i, label);
        }
    }
    ticker.setTicks(ticks);
}
