// AttnScope — the main window's menus, About box and persisted settings. GPL-3.0-or-later.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QTabWidget>
#include <QUndoStack>
#include <algorithm>

#include "attn/util/memory_budget.hpp"
#include "io/examples.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "settings_keys.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/recent_labels.hpp"
#include "widgets/token_editor.hpp"
#include "widgets/undo_shortcuts.hpp"
#include "widgets/user_guide.hpp"

void MainWindow::buildMenus() {
    fileMenu_ = menuBar()->addMenu(tr("&File"));
    openAction_ = fileMenu_->addAction(tr("&Open…"));
    openAction_->setObjectName(QStringLiteral("actionOpen"));
    openAction_->setShortcut(QKeySequence::Open);
    openAction_->setToolTip(tr("Open a scene or attention weights from a file"));
    saveAction_ = fileMenu_->addAction(tr("&Save…"));
    saveAction_->setObjectName(QStringLiteral("actionSave"));
    saveAction_->setShortcut(QKeySequence::Save);
    saveAction_->setToolTip(tr("Save the scene to a file"));
    exportAction_ = fileMenu_->addAction(tr("&Export…"));
    exportAction_->setObjectName(QStringLiteral("actionExport"));
    exportAction_->setShortcut(QKeySequence(tr("Ctrl+E")));
    exportAction_->setToolTip(tr("Export the current view as PNG, SVG or PDF"));
    // The data/IO module connects these and enables them; until then they are visibly inactive.
    for (QAction* a : {openAction_, saveAction_, exportAction_})
        a->setEnabled(false);
    recentMenu_ = fileMenu_->addMenu(tr("Open &Recent"));
    recentMenu_->setToolTipsVisible(true);
    // Listed afresh each time it opens: a file deleted meanwhile is gone from it.
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    fileMenu_->addSeparator();
    QAction* quit = fileMenu_->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // Typing still waiting in the sentence box becomes its own step first, so Undo takes back
    // what the user sees, whichever control has the focus (see UndoShortcutRouter).
    QUndoStack* stack = scene_->undoStack();
    QAction* undo = edit->addAction(tr("&Undo"), this, [this, stack] {
        tokens_->flush();
        stack->undo();
    });
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = edit->addAction(tr("&Redo"), this, [this, stack] {
        tokens_->flush();
        stack->redo();
    });
    redo->setObjectName(QStringLiteral("actionRedo"));
    redo->setShortcuts(QKeySequence::Redo);
    const auto follow = [stack, undo, redo] {
        undo->setEnabled(stack->canUndo());
        redo->setEnabled(stack->canRedo());
        undo->setText(stack->canUndo() ? tr("&Undo %1").arg(stack->undoText()) : tr("&Undo"));
        redo->setText(stack->canRedo() ? tr("&Redo %1").arg(stack->redoText()) : tr("&Redo"));
    };
    connect(stack, &QUndoStack::indexChanged, this, follow);
    connect(stack, &QUndoStack::cleanChanged, this, follow);
    follow();
    (new UndoShortcutRouter(this))->passThrough(exportAction_->shortcut());

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    QAction* all =
        viewMenu_->addAction(tr("Show &all heads"), this, [this] { grid_->setFocusedHead(-1); });
    all->setShortcut(QKeySequence(tr("Ctrl+0")));
    all->setToolTip(tr("Return from a focused head to the grid (Esc in the grid)"));
    QAction* focus = viewMenu_->addAction(tr("&Focus selected head"), this, [this] {
        grid_->setFocusedHead(scene_->selection().head);
    });
    focus->setShortcut(QKeySequence(tr("Ctrl+F")));
    QAction* next = viewMenu_->addAction(tr("&Next head"), this, [this] {
        const int count = grid_->headCount();
        if (count == 0) return;
        Selection s = scene_->selection();
        s.head = (s.head + 1) % count;
        scene_->setSelection(s);
        if (grid_->focusedHead() >= 0) grid_->setFocusedHead(s.head);
    });
    next->setShortcut(QKeySequence(tr("Ctrl+]")));
    QAction* prev = viewMenu_->addAction(tr("&Previous head"), this, [this] {
        const int count = grid_->headCount();
        if (count == 0) return;
        Selection s = scene_->selection();
        s.head = (s.head + count - 1) % count;
        scene_->setSelection(s);
        if (grid_->focusedHead() >= 0) grid_->setFocusedHead(s.head);
    });
    prev->setShortcut(QKeySequence(tr("Ctrl+[")));
    viewMenu_->addSeparator();
    for (QDockWidget* dock : {sentenceDock_, static_cast<QDockWidget*>(controls_), queryDock_})
        viewMenu_->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"), this, [this] {
        auto* dialog = new UserGuide(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    guide->setObjectName(QStringLiteral("actionUserGuide"));
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About AttnScope"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    QSettings settings;
    QStringList files = settings.value(settings_keys::kRecentFiles).toStringList();
    // A file deleted or moved since is no choice: it leaves the list.
    const qsizetype before = files.size();
    files.removeIf([](const QString& path) { return !QFileInfo(path).isFile(); });
    if (files.size() != before) settings.setValue(settings_keys::kRecentFiles, files);
    const QStringList labels = recentFileLabels(files);
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QString& path = files.at(i);
        QAction* a = recentMenu_->addAction(labels.at(i));
        a->setToolTip(path);
        a->setStatusTip(path);
        connect(a, &QAction::triggered, this, [this, path] { Q_EMIT recentFileRequested(path); });
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(settings_keys::kRecentFiles).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > settings_keys::kMaxRecentFiles)
        files.removeLast();
    settings.setValue(settings_keys::kRecentFiles, files);
    settings.setValue(settings_keys::kLastDirectory, QFileInfo(path).absolutePath());
    rebuildRecentMenu();
}

namespace {
// A window manager's title bar and borders: not known before the window is shown, so allowed
// for generously.
constexpr int kTitleBar = 48, kBorders = 8;
}  // namespace

QSize MainWindow::defaultSize() const {
    // 1280 × 800 where there is room, else the screen's free area less title bar and borders.
    const QScreen* s = screen();
    if (!s) return {1280, 800};
    const QRect free = s->availableGeometry();
    return {std::min(1280, free.width() - kBorders), std::min(800, free.height() - kTitleBar)};
}

void MainWindow::clampToScreen() {
    const QScreen* s = screen();
    if (!s) return;
    const QRect free = s->availableGeometry();
    QRect g = geometry();
    g.setSize(g.size().boundedTo(QSize(free.width() - kBorders, free.height() - kTitleBar)));
    g.moveLeft(std::clamp(
        g.left(), free.left() + kBorders / 2,
        std::max(free.left() + kBorders / 2, free.right() + 1 - kBorders / 2 - g.width())));
    g.moveTop(std::clamp(g.top(), free.top() + kTitleBar - kBorders / 2,
                         std::max(free.top() + kTitleBar - kBorders / 2,
                                  free.bottom() + 1 - kBorders / 2 - g.height())));
    if (g != geometry()) setGeometry(g);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    // Qt fits a restored geometry into the screen it opens on (title bar included); the
    // default must fit too.
    if (!restoreGeometry(settings.value(settings_keys::kWindowGeometry).toByteArray()))
        resize(defaultSize());
    else
        clampToScreen();  // saved on a larger screen, or beyond this one's edge
    restoreState(settings.value(settings_keys::kWindowState).toByteArray());
    HeatmapStyle style;
    style.colorMap = colorMapFromId(settings.value(settings_keys::kColorMap).toString());
    style.logScale = settings.value(settings_keys::kLogScale, false).toBool();
    style.sharedRange = settings.value(settings_keys::kSharedRange, true).toBool();
    style.aggregation =
        settings.value(settings_keys::kAggregation).toString() == QLatin1StringView("mean")
            ? attn::Aggregation::Mean
            : attn::Aggregation::Max;
    ViewState::of(scene_)->setStyle(style);
    grid_->setStyle(style);
    tabs_->setCurrentIndex(settings.value(settings_keys::kCurrentTab, 0).toInt());
    try {
        const QString budget = settings.value(settings_keys::kMemoryBudget).toString();
        attn::set_memory_budget(budget.isEmpty() ? 0 : attn::parse_bytes(budget.toStdString()));
    } catch (const std::exception&) {
        attn::set_memory_budget(0);  // an unreadable setting: the default
    }
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue(settings_keys::kWindowGeometry, saveGeometry());
    settings.setValue(settings_keys::kWindowState, saveState());
    settings.setValue(settings_keys::kCurrentTab, tabs_->currentIndex());
    const HeatmapStyle style = controls_->style();
    settings.setValue(settings_keys::kColorMap, colorMapId(style.colorMap));
    settings.setValue(settings_keys::kLogScale, style.logScale);
    settings.setValue(settings_keys::kSharedRange, style.sharedRange);
    settings.setValue(settings_keys::kAggregation, style.aggregation == attn::Aggregation::Mean
                                                       ? QStringLiteral("mean")
                                                       : QStringLiteral("max"));
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About AttnScope"),
        tr("<h3>AttnScope %1</h3><p>See and understand attention, the mechanism at the heart of "
           "Transformers: every head's weights, live controls, and the math worked out.</p>"
           "<p>GPL-3.0-or-later.</p>")
                .arg(QStringLiteral(ATTNSCOPE_VERSION)) +
            fileio::examplesNoticeHtml());
}
