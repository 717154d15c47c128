// AttnScope — token labels on plot axes. GPL-3.0-or-later.
#include "views/token_labels.hpp"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "attn/io/json/attention_json.hpp"
#include "model/numbering.hpp"

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

namespace {
/// The dynamic property of a QCPAxis holding its positions' full labels.
constexpr char kPlainLabels[] = "attnPlainLabels";
}  // namespace

void setPlainLabels(QCPAxis* axis, const std::vector<std::string>& tokens) {
    QStringList labels;
    labels.reserve(qsizetype(tokens.size()));
    for (const std::string& t : tokens)
        labels << QString::fromStdString(t);
    axis->setProperty(kPlainLabels, labels);
}

QString plainLabel(const QCPAxis* axis, double v) {
    if (!axis) return {};
    const QStringList labels = axis->property(kPlainLabels).toStringList();
    const double index = std::round(v);
    if (!labels.isEmpty() && index == v && index >= 0 && index < double(labels.size()))
        return labels[qsizetype(index)];
    const auto text = axis->ticker().dynamicCast<QCPAxisTickerText>();
    return text ? text->ticks().value(v) : QString();
}

std::vector<std::string> widestTokens(const std::vector<std::string>& tokens, std::size_t count) {
    if (tokens.size() <= count) return tokens;
    std::vector<std::pair<qsizetype, std::size_t>> lengths;  // (−label length, index)
    lengths.reserve(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i)
        lengths.emplace_back(-elideToken(tokens[i]).size(), i);
    std::partial_sort(lengths.begin(), lengths.begin() + std::ptrdiff_t(count), lengths.end());
    std::vector<std::size_t> picked;
    for (std::size_t k = 0; k < count; ++k)
        picked.push_back(lengths[k].second);
    std::sort(picked.begin(), picked.end());
    std::vector<std::string> out;
    for (const std::size_t i : picked)
        out.push_back(tokens[i]);
    return out;
}

void setTokenTicks(QCPAxisTickerText& ticker, const std::vector<std::string>& tokens,
                   double axisPixels, double minSpacingPx) {
    setTokenTicks(ticker, tokens, 0, static_cast<long long>(tokens.size()), axisPixels,
                  minSpacingPx);
}

void setTokenTicks(QCPAxisTickerText& ticker, const std::vector<std::string>& tokens,
                   long long first, long long count, double axisPixels, double minSpacingPx) {
    const auto total = static_cast<long long>(tokens.size());
    first = std::clamp(first, 0LL, total);
    count = std::clamp(count, 0LL, total - first);
    QMap<double, QString> ticks;
    if (count > 0) {
        const double perToken = std::max(axisPixels, 1.0) / double(count);
        const auto stride = std::max(1LL, (long long)std::ceil(minSpacingPx / perToken));
        // Labels on multiples of the stride, so panning does not make them jump about.
        for (long long i = (first + stride - 1) / stride * stride; i < first + count; i += stride) {
            QString label = elideToken(tokens[std::size_t(i)]);
            if (stride > 1) label += QStringLiteral(" ·%1").arg(shown(i));  // from 1
            ticks.insert(double(i), label);
        }
    }
    ticker.setTicks(ticks);
}
