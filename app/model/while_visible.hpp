// AttnScope — "recompute only while visible": one rule for every view that computes.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <functional>

class QWidget;

/// Runs a widget's refresh when its data went stale and it is visible, or else when it is next
/// shown: a hidden view computes nothing. Starts stale (the first show refreshes).
class WhileVisible : public QObject {
  public:
    WhileVisible(QWidget* widget, std::function<void()> refresh);
    /// The widget's data went stale: refreshes now when the widget is visible.
    void stale();
    /// True while a refresh waits for the widget to be shown.
    bool isStale() const { return stale_; }
    /// The widget was refreshed another way (e.g. synchronously).
    void clear() { stale_ = false; }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QWidget* widget_;
    std::function<void()> refresh_;
    bool stale_ = true;
};
