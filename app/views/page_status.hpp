// AttnScope — one status line for a tab widget's pages, each page with its own message.
// GPL-3.0-or-later.
#pragma once

#include <QHash>
#include <QLabel>
#include <QObject>
#include <QTabWidget>

/// A status line above (or below) PAGES: each page keeps the message of its own job, and LINE
/// shows the current page's, so that a message never shows on a page it says nothing about.
class PageStatus : public QObject {
  public:
    PageStatus(QLabel* line, QTabWidget* pages) : QObject(line), line_(line), pages_(pages) {
        line->setWordWrap(true);
        // Two lines always fit: a wrapped message is never squeezed under the pages.
        line->setMinimumHeight(line->fontMetrics().lineSpacing() * 2 + 4);
        connect(pages, &QTabWidget::currentChanged, this, &PageStatus::show);
    }

    /// Sets PAGE's message (red when ERROR), shown at once when PAGE is the current page.
    void set(int page, const QString& text, bool error = false) {
        messages_.insert(page, {text, error});
        if (pages_->currentIndex() == page) show();
    }

  private:
    struct Message {
        QString text;
        bool error = false;
    };

    void show() {
        const Message m = messages_.value(pages_->currentIndex());
        line_->setText(m.text);
        line_->setStyleSheet(m.error ? QStringLiteral("color: #b00020;") : QString());
    }

    QLabel* line_;
    QTabWidget* pages_;
    QHash<int, Message> messages_;
};
