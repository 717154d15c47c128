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
///
/// Some docks have something to show only at times (Loaded data while a file's attention is
/// loaded, Translation while an encoder–decoder's run is shown, Model while a model is open):
/// they say so with setAvailable, and show while available on the tabs that use them alone.
class TabDocks : public QObject {
    Q_OBJECT
  public:
    TabDocks(QTabWidget* tabs, QList<QDockWidget*> docks, QObject* parent = nullptr);

    /// The docks `tab` shows until the user changes them there (other tabs show every dock).
    void setDefault(QWidget* tab, QList<QDockWidget*> shown);
    /// DOCK (added to the docks managed) shows on TABS alone, until the user changes it there.
    void setDockTabs(QDockWidget* dock, QList<QWidget*> tabs);
    /// Applies the current tab's docks (after the window's state was restored).
    void apply();
    /// Whether DOCK has something to show: when not it is hidden on every tab; when it comes to
    /// have, it shows where the current tab wants it (saying it again changes nothing: a dock
    /// the user closed stays closed). A dock of a window without TabDocks just shows or hides.
    static void setAvailable(QDockWidget* dock, bool available);

  private:
    void onCurrentChanged(int index);
    bool wanted(QWidget* tab, QDockWidget* dock) const;
    /// A dock shown on some tabs alone (setDockTabs) has nothing to show until it says it has.
    bool available(QDockWidget* dock) const {
        return available_.value(dock, !dockTabs_.contains(dock));
    }
    /// Shows or hides DOCK as the current tab and its availability want.
    void place(QDockWidget* dock);

    QTabWidget* tabs_;
    QList<QDockWidget*> docks_;
    QPointer<QWidget> current_;
    QHash<QWidget*, QList<QDockWidget*>> defaults_;
    QHash<QDockWidget*, QList<QWidget*>> dockTabs_;      ///< the tabs a dock shows on (setDockTabs)
    QHash<QDockWidget*, bool> available_;                ///< what setAvailable said last
    QHash<QWidget*, QHash<QDockWidget*, bool>> chosen_;  ///< what the user left on each tab
};
