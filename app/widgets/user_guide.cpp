// AttnScope — Help ▸ User Guide. GPL-3.0-or-later.
#include "widgets/user_guide.hpp"

#include <QHBoxLayout>
#include <QListWidget>
#include <QTextBrowser>
#include <QUrl>

namespace {

struct Doc {
    const char* title;
    const char* file;
};

constexpr Doc kDocs[] = {
    {QT_TRANSLATE_NOOP("UserGuide", "Getting started"), "getting-started.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Interventions"), "interventions.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Generation"), "generation.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Python"), "python.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Census of heads"), "census.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Words, not pieces"), "words.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Long sequences"), "long-sequences.md"},
    {QT_TRANSLATE_NOOP("UserGuide", "Session file format"), "session-format.md"},
};

}  // namespace

UserGuide::UserGuide(QWidget* parent)
    : QDialog(parent), list_(new QListWidget(this)), browser_(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("userGuide"));
    setWindowTitle(tr("AttnScope User Guide"));
    for (const Doc& d : kDocs) {
        auto* item = new QListWidgetItem(tr(d.title), list_);
        item->setData(Qt::UserRole, QString::fromLatin1(d.file));
    }
    list_->setMaximumWidth(list_->sizeHintForColumn(0) + 24);
    browser_->setOpenExternalLinks(true);  // the web's links go to the browser
    auto* row = new QHBoxLayout(this);
    row->addWidget(list_);
    row->addWidget(browser_, 1);
    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0) showDoc(list_->item(row)->data(Qt::UserRole).toString());
    });
    resize(900, 640);
    list_->setCurrentRow(0);
}

void UserGuide::showDoc(const QString& fileName) {
    // From the resources, by URL: relative links to the other docs and pictures resolve there.
    browser_->setSource(QUrl(QStringLiteral("qrc:/docs/") + fileName),
                        QTextDocument::MarkdownResource);
}
