// AttnScope — the window's tab bar, in a fixed strip above the docks. GPL-3.0-or-later.
#pragma once

#include <QToolBar>

class QTabBar;
class QTabWidget;

/// The tabs of `tabs` shown in a toolbar across the top of the window instead of on the tab
/// widget itself: the tab widget moves whenever a tab shows or hides the side and top docks
/// (the Playground hides them all), and its tab bar moved with it under the user's pointer.
/// Here it stays put. The tab widget's own bar is hidden; both follow each other.
class TabStrip : public QToolBar {
    Q_OBJECT
  public:
    explicit TabStrip(QTabWidget* tabs, QWidget* parent = nullptr);

    /// Adds the tab `tabs` just got at its end (MainWindow::addView).
    void addTab(const QString& title);
    QTabBar* bar() const { return bar_; }

  private:
    QTabWidget* tabs_;
    QTabBar* bar_;
};
