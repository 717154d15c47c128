// AttnScope — the main window: wires Scene, ComputeService, views and docks together.
// GPL-3.0-or-later.
#pragma once

#include <QMainWindow>

#include "model/compute_service.hpp"

class Scene;
class HeatmapGrid;
class WeightsBar;
class MathPanel;
class ViewsTab;
class ControlsDock;
class TokenEditor;
class QLabel;
class QTabWidget;
class QMenu;
class QAction;
class QDockWidget;
class TabDocks;
class TabStrip;
class AlertBanner;
class QVBoxLayout;

/// Only wiring: the Scene changes → ComputeService → views; views' requests → Scene. Other
/// modules add tabs with addView() and fill the File menu through fileMenu() and the actions.
class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Adds a tab to the central tab widget (the "Heads" tab is the first).
    /// Adds a tab: key is its stable name in the view state (view_keys::kTab…), title what the
    /// user reads.
    void addView(QWidget* view, const char* key, const QString& title);
    /// The stable key addView gave view ("" for none).
    static QString viewKey(const QWidget* view);
    /// The docks `tab` shows by default (a tab added without it shows every dock).
    void setTabDocks(QWidget* tab, const QList<QDockWidget*>& shown);
    QDockWidget* sentenceDock() const { return sentenceDock_; }
    QDockWidget* queryDock() const { return queryDock_; }

    Scene* scene() const { return scene_; }
    ComputeService* computeService() const { return compute_; }
    SceneResultPtr result() const { return compute_->result(); }
    HeatmapGrid* heatmapGrid() const { return grid_; }
    WeightsBar* weightsBar() const { return weights_; }
    MathPanel* mathPanel() const { return math_; }
    ViewsTab* viewsTab() const { return views_; }
    ControlsDock* controlsDock() const { return controls_; }
    TokenEditor* tokenEditor() const { return tokens_; }
    QTabWidget* tabs() const { return tabs_; }
    /// The one-line first-launch hint (hidden for good once closed).
    QWidget* hint() const { return hint_; }

    // Hooks for the data/IO module: these actions start disabled until it connects them.
    QMenu* fileMenu() const { return fileMenu_; }
    QMenu* viewMenu() const { return viewMenu_; }
    QMenu* recentMenu() const { return recentMenu_; }
    QAction* openAction() const { return openAction_; }
    QAction* saveAction() const { return saveAction_; }
    QAction* exportAction() const { return exportAction_; }
    /// Puts path first in the recent files (QSettings) and rebuilds the Recent menu.
    void addRecentFile(const QString& path);
    /// Adds BANNER (a warning that must stay in view, e.g. the autosave's) above the tabs.
    void addBanner(QWidget* banner);
    /// The banner showing an error that escaped an action (UnexpectedErrors), hidden until one.
    AlertBanner* errorBanner() const { return errorBanner_; }

  Q_SIGNALS:
    /// A new result is shown (for views added with addView that follow the scene).
    void resultChanged(SceneResultPtr result);
    /// The user picked a file from File ▸ Recent.
    void recentFileRequested(const QString& path);

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    /// The grid and the tabs follow the view state and report the user's changes to it.
    void connectViewState();
    /// The inner tabs of tab `tab` (the lenses, the views) follow the view state's innerTab.
    void followInnerTabs(QTabWidget* inner, const char* tab);
    /// Shows the view state's zoom in the grid's new result (dropping what it cannot show).
    void applyZoom();
    QWidget* buildHint();
    void buildDocks();
    void buildMenus();
    void buildStatusBar();
    void rebuildRecentMenu();
    /// The size of a first start: 1280 × 800, or less so that the whole window with its title
    /// bar fits the screen's free area.
    QSize defaultSize() const;
    /// Moves and shrinks the window so that it and its title bar fit its screen's free area.
    void clampToScreen();
    void restoreSettings();
    void saveSettings();
    void onSpecChanged();
    void onResult(SceneResultPtr result, quint64 id, double ms);
    void onFailed(const QString& message);
    /// The status line's note of the run's changes: shown when there are some and no message.
    void showRunChanges();
    void onSelectionChanged();
    void showAbout();

    Scene* scene_ = nullptr;
    ComputeService* compute_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    TabStrip* tabStrip_ = nullptr;  ///< the tabs' bar, fixed above the docks
    HeatmapGrid* grid_ = nullptr;
    WeightsBar* weights_ = nullptr;
    MathPanel* math_ = nullptr;
    ViewsTab* views_ = nullptr;
    ControlsDock* controls_ = nullptr;
    TokenEditor* tokens_ = nullptr;
    QDockWidget* sentenceDock_ = nullptr;
    QWidget* hint_ = nullptr;  ///< the first-launch hint
    QDockWidget* queryDock_ = nullptr;
    TabDocks* tabDocks_ = nullptr;
    QMenu* fileMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* saveAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QLabel* sizeLabel_ = nullptr;
    QLabel* changesLabel_ = nullptr;  ///< what the shown model run changes from the model
    QLabel* timeLabel_ = nullptr;
    QLabel* busyLabel_ = nullptr;
    QVBoxLayout* column_ = nullptr;  ///< the central column: banners, then the tabs
    AlertBanner* errorBanner_ = nullptr;
    bool firstResult_ = true;
};
