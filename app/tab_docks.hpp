// AttnScope — which docks each tab shows. GPL-3.0-or-later.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

class QDockWidget;
class QTabWidget;
class QWidget;

/// The side docks show where they serve and hide where they do not: the scene's controls and
/// the selected query beside the heads, the whole width for the playground, which has its own
/// controls. A dock the user shows or hides on a tab stays so on that tab.
class TabDocks : public QObject {
    Q_OBJECT
  public:
    TabDocks(QTabWidget* tabs, QList<QDockWidget*> docks, QObject* parent = nullptr);

    /// The docks `tab` shows until the user changes them there (other tabs show every dock).
    void setDefault(QWidget* tab, QList<QDockWidget*> shown);
    /// Applies the current tab's docks (after the window's state was restored).
    void apply();

  private:
    void onCurrentChanged(int index);
    bool wanted(QWidget* tab, QDockWidget* dock) const;

    QTabWidget* tabs_;
    QList<QDockWidget*> docks_;
    QPointer<QWidget> current_;
    QHash<QWidget*, QList<QDockWidget*>> defaults_;
    QHash<QWidget*, QHash<QDockWidget*, bool>> chosen_;  ///< what the user left on each tab
};
