// AttnScope app tests — an exported CSV read back as a user's program reads it.
// GPL-3.0-or-later.
#pragma once

#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>

namespace test_support {

/// The rows of a CSV file (RFC 4180 quotes), the header first.
inline QList<QStringList> readCsv(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(f.readAll());
    QList<QStringList> rows{{}};
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar ch = text[i];
        if (quoted) {
            if (ch == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"'))
                field += ch, ++i;
            else if (ch == QLatin1Char('"'))
                quoted = false;
            else
                field += ch;
        } else if (ch == QLatin1Char('"')) {
            quoted = true;
        } else if (ch == QLatin1Char(',')) {
            rows.back() << field, field.clear();
        } else if (ch == QLatin1Char('\n')) {
            rows.back() << field, field.clear();
            rows.push_back({});
        } else {
            field += ch;
        }
    }
    if (rows.back().isEmpty()) rows.pop_back();
    return rows;
}

}  // namespace test_support
