// AttnScope — a warning strip across the top of the window: stays in view, blocks nothing.
// GPL-3.0-or-later.
#pragma once

#include <QFrame>
#include <QString>

class QLabel;
class QPushButton;
class QToolButton;

/// A non-modal warning above the tabs (an autosave that fails, an error that escaped an
/// action): hidden until setMessage, hidden again by clear() or its × button. An optional
/// action button (e.g. "Retry now") emits actionClicked.
class AlertBanner : public QFrame {
    Q_OBJECT
  public:
    /// ACTION: the text of the action button ("" for none).
    explicit AlertBanner(const QString& action = {}, QWidget* parent = nullptr);

    /// Shows MESSAGE (replacing the one shown).
    void setMessage(const QString& message);
    /// Hides the banner.
    void clear();
    /// The message shown ("" when hidden).
    QString message() const;
    QPushButton* actionButton() const { return action_; }

  Q_SIGNALS:
    void actionClicked();

  private:
    QLabel* text_ = nullptr;
    QPushButton* action_ = nullptr;
    QToolButton* close_ = nullptr;
};
