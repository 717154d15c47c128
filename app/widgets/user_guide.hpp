// AttnScope — Help ▸ User Guide: the user docs shipped inside the program. GPL-3.0-or-later.
#pragma once

#include <QDialog>

class QListWidget;
class QTextBrowser;

/// The docs of docs/ (getting started, interventions, generation, Python, census, words, long
/// sequences, session format), compiled in as
/// resources so that an installed program has them without the source tree; links between
/// them and their pictures work.
class UserGuide : public QDialog {
    Q_OBJECT
  public:
    explicit UserGuide(QWidget* parent = nullptr);
    /// Shows the doc `fileName` ("census.md").
    void showDoc(const QString& fileName);
    QTextBrowser* browser() const { return browser_; }
    QListWidget* list() const { return list_; }

  private:
    QListWidget* list_;
    QTextBrowser* browser_;
};
