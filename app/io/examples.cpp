// AttnScope — File ▸ Examples. GPL-3.0-or-later.
#include "io/examples.hpp"
#include "io/fileio_tr.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace fileio {
const QList<Example>& examples() {
    static const QList<Example> list = {
        {tr("GPT-2 small: raw scores, 12 layers × 12 heads (causal)"),
         QStringLiteral("gpt2_small_ex0.npz"),
         tr("\"Data visualization empowers users to\"; from poloclub/transformer-explainer, "
            "MIT License, Copyright (c) 2022 Polo Club of Data Science")},
        {tr("DistilBERT: BertViz head view, 6 layers × 12 heads"),
         QStringLiteral("bertviz_distilbert_headview.json"),
         tr("\"[CLS] the cat sat on the mat [SEP]\"; from jessevig/bertviz, Apache License 2.0, "
            "Copyright Jesse Vig")},
        {tr("GPT-2 small: BertViz head view, 12 layers × 12 heads"),
         QStringLiteral("bertviz_gpt2_headview.json"),
         tr("\"The quick brown fox jumps over the lazy dogs.\"; from jessevig/bertviz, Apache "
            "License 2.0, Copyright Jesse Vig")},
    };
    return list;
}

QString exampleResource(const Example& example) {
    return QStringLiteral(":/examples/") + example.fileName;
}

QString materializeExample(const Example& example, QString* error) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
                        QStringLiteral("/examples");
    const QString path = dir + QLatin1Char('/') + example.fileName;
    QFile resource(exampleResource(example));
    if (QFileInfo(path).size() == resource.size()) return path;
    if (!QDir().mkpath(dir)) {
        *error = tr("Cannot create the folder %1 for the example %2.").arg(dir, example.fileName);
        return {};
    }
    QFile::remove(path);
    if (!resource.copy(path)) {
        *error = tr("Cannot write the example %1 to %2: %3")
                     .arg(example.fileName, path, resource.errorString());
        return {};
    }
    // The copy keeps the resource's read-only permissions; the user may delete or replace it.
    QFile::setPermissions(
        path, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    return path;
}

QString examplesNoticeHtml() {
    QString html =
        tr("<p>File ▸ Examples ships real attention computed by trained models; "
           "each keeps its own licence:</p><ul>");
    for (const Example& e : examples())
        html += QStringLiteral("<li><b>%1</b>: %2</li>").arg(e.fileName, e.source.toHtmlEscaped());
    return html + QStringLiteral("</ul>");
}

}  // namespace fileio
