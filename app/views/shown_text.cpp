// AttnScope — how numbers and tokens read in lists and labels. GPL-3.0-or-later.
#include "views/shown_text.hpp"

#include <QTextBoundaryFinder>
#include <algorithm>
#include <cmath>

QString percentText(double probability) {
    const double percent = 100.0 * probability;
    if (!(percent > 0)) return QStringLiteral("0 %");
    if (percent < 0.001) return QStringLiteral("<0.001 %");
    // From 1 % one decimal; below it the first significant digit, so that 0.009 % is not 0.0 %.
    const int decimals =
        percent >= 1 ? 1 : std::clamp(int(std::ceil(-std::log10(percent) - 1e-9)), 1, 3);
    return QStringLiteral("%1 %").arg(percent, 0, 'f', decimals);
}

QString isolatedText(const QString& text) {
    return QChar(0x2068) + text + QChar(0x2069);
}

QString unbrokenText(const QString& text) {
    // Only where a break may fall: never inside a character's surrogates or before its marks.
    QTextBoundaryFinder lines(QTextBoundaryFinder::Line, text);
    QString out;
    qsizetype from = 0;
    for (qsizetype at = lines.toNextBoundary(); at > 0 && at < text.size();
         at = lines.toNextBoundary()) {
        out.append(QStringView(text).mid(from, at - from)).append(QChar(0x2060));
        from = at;
    }
    return out.append(QStringView(text).mid(from));
}

QString quotedToken(const QString& text) {
    return QStringLiteral("“") + isolatedText(unbrokenText(text)) + QStringLiteral("”");
}
