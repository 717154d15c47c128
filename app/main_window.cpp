// AttnScope — the main window: wiring. Menus and settings are in main_window_menus.cpp.
// GPL-3.0-or-later.
#include "main_window.hpp"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/io/json/attention_json.hpp"
#include "attn/lenses/alignment.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/scene/scope_text.hpp"
#include "attn/scene/seq2seq_scene.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/layer_cache.hpp"
#include "model/run_changes.hpp"
#include "model/scene.hpp"
#include "model/unexpected_error.hpp"
#include "model/view_state.hpp"
#include "playground/playground_widget.hpp"
#include "settings_keys.hpp"
#include "tab_docks.hpp"
#include "views/ablation_menu.hpp"
#include "views/heatmap_grid.hpp"
#include "views/math_panel.hpp"
#include "views/views_tab.hpp"
#include "views/weights_bar.hpp"
#include "widgets/alert_banner.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/tab_strip.hpp"
#include "widgets/token_editor.hpp"

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    Q_INIT_RESOURCE(attnscope);  // the resources live in a static library
    setWindowTitle(tr("AttnScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/attnscope.svg")));
    scene_ = new Scene(this);
    compute_ = new ComputeService(this);
    // Every view of all layers reads one cache, which takes the shown layer from compute_.
    LayerCache::of(scene_)->setComputeService(compute_);
    // Connected before any view exists: the heatmaps are computed and drawn first when the
    // scene changes, whatever other tabs also do with the change.
    connect(scene_, &Scene::specChanged, this, &MainWindow::onSpecChanged);

    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    // A tab's large minimum size must not push the docks off a 1280-pixel screen.
    tabs_->setMinimumSize(360, 300);
    // The tabs' bar across the top, above the docks: it stays put when a tab hides them.
    tabStrip_ = new TabStrip(tabs_, this);
    addToolBar(Qt::TopToolBarArea, tabStrip_);
    grid_ = new HeatmapGrid;
    addView(grid_, view_keys::kTabHeads, tr("Heads"));
    auto* central = new QWidget;
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(tabs_, 1);
    column_ = column;
    setCentralWidget(central);
    // An error that escaped an action is shown here; the window and its document stay.
    errorBanner_ = new AlertBanner;
    errorBanner_->setObjectName(QStringLiteral("errorBanner"));
    addBanner(errorBanner_);
    connect(&UnexpectedErrors::instance(), &UnexpectedErrors::reported, this,
            [this](const QString& message) {
                errorBanner_->setMessage(message);
                statusBar()->showMessage(message);
            });
    // The playground's state is the view state's: the tab is a view of it.
    auto* playground = new PlaygroundWidget(*ViewState::of(scene_)->playground(), this);
    addView(playground, view_keys::kTabPlayground, tr("Playground"));
    // Theory lenses: one tab holding a tab per lens; hidden lenses recompute on first show.
    auto* theory = new QTabWidget;
    theory->setObjectName(QStringLiteral("theoryTabs"));
    theory->setDocumentMode(true);
    for (const QString& name : lensNames()) {
        QWidget* lens = createLens(name, scene_, theory);
        if (auto* panel = qobject_cast<LensPanel*>(lens)) {  // the defaults, in the view state
            ViewState::of(scene_)->setLensSettings(name, panel->settings());
            panel->recordEdits();  // from now on a change is the user's, one undo step
        }
        lens->setProperty(view_keys::kKeyProperty, name);  // its registry name: a constant
        theory->addTab(lens, lensTitle(name));
    }
    addView(theory, view_keys::kTabTheory, tr("Theory"));
    views_ = new ViewsTab(scene_);
    addView(views_, view_keys::kTabViews, tr("Views"));

    buildDocks();
    buildMenus();
    buildStatusBar();
    // The hint lives in the status bar: a line that is there anyway, so on a first launch the
    // four default heads still fit the default window without scrolling.
    statusBar()->insertWidget(0, buildHint(), 1);

    connect(scene_, &Scene::selectionChanged, this, &MainWindow::onSelectionChanged);
    connect(compute_, &ComputeService::resultReady, this, &MainWindow::onResult);
    connect(compute_, &ComputeService::failed, this, &MainWindow::onFailed);
    connect(compute_, &ComputeService::busyChanged, busyLabel_, &QLabel::setVisible);
    connect(grid_, &HeatmapGrid::selectionRequested, scene_, &Scene::setSelection);
    installAblationMenu(grid_, scene_);
    connect(weights_, &WeightsBar::keyClicked, this,
            [this](int key, Qt::KeyboardModifiers modifiers) {
                Selection s = scene_->selection();
                if (modifiers & (Qt::ControlModifier | Qt::ShiftModifier)) {
                    s = s.withKeyToggled(key);  // several keys: the views show their sum/mean
                } else {
                    s.keys.clear();
                    s.key = key;
                }
                scene_->setSelection(s);
            });
    connectViewState();

    restoreSettings();
    // Side docks only where they serve: the playground has its own controls and no selected
    // query; a lens has its own controls, and most read no scene. View ▸ shows them anyway.
    tabDocks_ = new TabDocks(tabs_, {sentenceDock_, controls_, queryDock_}, this);
    tabDocks_->setDefault(playground, {});
    tabDocks_->setDefault(theory, {sentenceDock_});
    tabDocks_->apply();
    onSpecChanged();  // the default scene (or the restored one) is computed at once
}

void MainWindow::setTabDocks(QWidget* tab, const QList<QDockWidget*>& shown) {
    tabDocks_->setDefault(tab, shown);
    if (tabs_->currentWidget() == tab) tabDocks_->apply();
}

MainWindow::~MainWindow() = default;

QString MainWindow::viewKey(const QWidget* view) {
    return view ? view->property(view_keys::kKeyProperty).toString() : QString();
}

void MainWindow::connectViewState() {
    // The view state owns the style, the focused head and the open tab; the widgets follow it
    // and tell it what the user did.
    ViewState* state = ViewState::of(scene_);
    connect(state, &ViewState::styleChanged, grid_, &HeatmapGrid::setStyle);
    connect(grid_, &HeatmapGrid::focusedHeadChanged, state, &ViewState::setFocusedHead);
    connect(state, &ViewState::focusedHeadChanged, grid_, [this, state](int head) {
        if (grid_->focusedHead() != head) grid_->setFocusedHead(head);
        state->setFocusedHead(grid_->focusedHead());  // a head the grid has not (yet): none
    });
    connect(tabs_, &QTabWidget::currentChanged, state,
            [this, state](int index) { state->setOpenTab(viewKey(tabs_->widget(index))); });
    connect(state, &ViewState::openTabChanged, tabs_, [this](const QString& key) {
        for (int i = 0; i < tabs_->count(); ++i)
            if (viewKey(tabs_->widget(i)) == key) tabs_->setCurrentIndex(i);
    });
    state->setOpenTab(viewKey(tabs_->currentWidget()));
    followInnerTabs(findChild<QTabWidget*>(QStringLiteral("theoryTabs")), view_keys::kTabTheory);
    followInnerTabs(views_->tabs(), view_keys::kTabViews);
    // Zoom: the grid reports the wheel and drags, and shows what the state holds.
    connect(grid_, &HeatmapGrid::zoomChanged, state, &ViewState::setZoom);
    connect(state, &ViewState::zoomChanged, grid_, &HeatmapGrid::setZoom);
    // The Views tab's options (heads one/mean/max, reverse).
    connect(views_, &ViewsTab::optionsChanged, state, &ViewState::setViewOptions);
    connect(state, &ViewState::viewOptionsChanged, views_, &ViewsTab::setOptions);
    state->setViewOptions(views_->options());
}

void MainWindow::followInnerTabs(QTabWidget* inner, const char* tab) {
    ViewState* state = ViewState::of(scene_);
    const QString key = QString::fromLatin1(tab);
    connect(inner, &QTabWidget::currentChanged, state, [state, inner, key](int index) {
        state->setInnerTab(key, viewKey(inner->widget(index)));
    });
    connect(state, &ViewState::innerTabChanged, inner,
            [inner, key](const QString& outer, const QString& page) {
                if (outer != key) return;
                for (int i = 0; i < inner->count(); ++i)
                    if (viewKey(inner->widget(i)) == page) inner->setCurrentIndex(i);
            });
    state->setInnerTab(key, viewKey(inner->currentWidget()));
}

void MainWindow::applyZoom() {
    // A zoom the new result's heads cannot show (another shape, fewer heads) is dropped.
    ViewState* state = ViewState::of(scene_);
    const QMap<int, HeatmapViewport> zooms = state->zooms();
    for (auto it = zooms.begin(); it != zooms.end(); ++it)
        if (!grid_->setZoom(it.key(), it.value())) state->setZoom(it.key(), HeatmapViewport{});
}

void MainWindow::addView(QWidget* view, const char* key, const QString& title) {
    view->setProperty(view_keys::kKeyProperty, QString::fromLatin1(key));
    tabs_->addTab(view, title);
    tabStrip_->addTab(title);
}

void MainWindow::buildDocks() {
    tokens_ = new TokenEditor(scene_);
    sentenceDock_ = new QDockWidget(tr("Sentence"), this);
    sentenceDock_->setObjectName(QStringLiteral("sentenceDock"));
    sentenceDock_->setWidget(tokens_);
    addDockWidget(Qt::TopDockWidgetArea, sentenceDock_);

    controls_ = new ControlsDock(scene_, this);
    addDockWidget(Qt::LeftDockWidgetArea, controls_);

    weights_ = new WeightsBar;
    math_ = new MathPanel;
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(weights_);
    split->addWidget(math_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    queryDock_ = new QDockWidget(tr("Selected query"), this);
    queryDock_->setObjectName(QStringLiteral("queryDock"));
    queryDock_->setWidget(split);
    queryDock_->setMinimumWidth(300);
    addDockWidget(Qt::RightDockWidgetArea, queryDock_);
    resizeDocks({controls_, queryDock_}, {255, 345}, Qt::Horizontal);
}

QWidget* MainWindow::buildHint() {
    // One line for a first launch, until closed: where the app starts to be useful.
    auto* frame = new QFrame;
    hint_ = frame;
    frame->setObjectName(QStringLiteral("firstLaunchHint"));
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setAutoFillBackground(true);
    frame->setBackgroundRole(QPalette::ToolTipBase);
    auto* row = new QHBoxLayout(frame);
    row->setContentsMargins(8, 2, 2, 2);
    auto* text =
        new QLabel(tr("Start: click a cell to work out its query · drag points in the Playground · "
                      "File ▸ Examples for real models (BERT, GPT-2)"));
    text->setForegroundRole(QPalette::ToolTipText);
    text->setWordWrap(true);
    auto* close = new QToolButton;
    close->setObjectName(QStringLiteral("closeHint"));
    close->setText(QStringLiteral("×"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Hide this hint for good"));
    row->addWidget(text, 1);
    row->addWidget(close);
    connect(close, &QToolButton::clicked, this, [this] {
        hint_->hide();
        QSettings().setValue(settings_keys::kHintDismissed, true);
    });
    hint_->setVisible(!QSettings().value(settings_keys::kHintDismissed, false).toBool());
    return hint_;
}

void MainWindow::addBanner(QWidget* banner) {
    column_->insertWidget(column_->indexOf(tabs_), banner);  // above the tabs, in order added
}

void MainWindow::buildStatusBar() {
    sizeLabel_ = new QLabel;
    timeLabel_ = new QLabel;
    busyLabel_ = new QLabel(tr("computing…"));
    busyLabel_->setVisible(false);
    sizeLabel_->setToolTip(tr("Tokens n, model width d_model, heads h and head width d_k"));
    timeLabel_->setToolTip(tr("Time of the last computation of the scene"));
    changesLabel_ = new QLabel;
    changesLabel_->setObjectName(QStringLiteral("runChanges"));
    changesLabel_->setToolTip(
        tr("The controls and interventions this result's run changes "
           "from the model as trained"));
    changesLabel_->setVisible(false);
    sizeLabel_->setObjectName(QStringLiteral("runSize"));
    // Margins keep the labels apart ("…1 edge knocked out" ran into "n = 16 × 16"), and the
    // vertical ones keep the underscore of "d_model", drawn below the font's descent, inside.
    for (QLabel* label : {busyLabel_, changesLabel_, sizeLabel_, timeLabel_})
        label->setContentsMargins(8, 2, 8, 2);
    // A message (e.g. "Opened the model …") takes the place of the run's changes while it shows,
    // rather than being drawn under them.
    connect(statusBar(), &QStatusBar::messageChanged, this, &MainWindow::showRunChanges);
    statusBar()->addPermanentWidget(busyLabel_);
    statusBar()->addPermanentWidget(changesLabel_);
    statusBar()->addPermanentWidget(sizeLabel_);
    statusBar()->addPermanentWidget(timeLabel_);
}

void MainWindow::onSpecChanged() {
    if (!math_) return;  // still constructing: the constructor computes at its end
    const attn::SceneSpec& s = scene_->spec();
    // Nobody should read linguistics into random projections.
    QString note = !s.is_synthetic() ? QString()
                                     : tr("Synthetic scene, seed %1: random projections, no "
                                          "trained model — no linguistics in them.")
                                           .arg(s.seed);
    // A model layer outside the controls' scope: say why the controls seem not to act on it.
    if (s.is_model() && !attn::model::controls_apply_in(s, s.layer))
        note = QString::fromStdString(attn::model::scope_note(s, s.layer));
    // An encoder–decoder's blocks: say which attention is shown and which sentence each axis is
    // (the three look alike, and only the Loaded data dock would name them).
    const attn::Index cross = s.is_loaded() ? attn::lenses::cross_component(s) : -1;
    if (cross >= 0 && cross == s.component)
        note =
            tr("Cross-attention: rows are the target's tokens (the decoder's queries), "
               "columns the source's (the encoder's keys).");
    else if (const auto part =
                 cross >= 0 ? attn::shown_component(*s.data, s.component) : std::nullopt;
             part == attn::model::Component::Encoder)
        note = tr("Encoder self-attention: rows and columns are the source's tokens.");
    else if (part == attn::model::Component::Decoder)
        note =
            tr("Decoder self-attention: rows and columns are the target's tokens; causal, "
               "each attends to itself and the tokens before it.");
    grid_->setNote(note);
    compute_->request(s);
}

void MainWindow::onResult(SceneResultPtr result, quint64, double ms) {
    const int n = int(result->q_tokens.size()), m = int(result->k_tokens.size());
    const int h = int(result->heads.size());
    grid_->setMessage(QString());
    grid_->setResult(result);
    applyZoom();
    weights_->setResult(result);
    views_->setResult(result);
    // The math panel names the τ and score of the result it shows, not of a pending request.
    const attn::SceneSpec& shown = compute_->resultSpec();
    QString rowNote;
    if (const attn::AttentionComponent* c = attn::shown_component(shown))
        rowNote = QString::fromStdString(attn::io::component_row_note(c->name));
    // A model layer outside the controls' scope ran at GPT-2's own τ = 1.
    const float tau = shown.is_model() && !attn::model::controls_apply_in(shown, shown.layer)
                          ? 1.f
                          : shown.temperature;
    math_->setContext(MathContext{shown.score, tau, rowNote});
    math_->setResult(result);
    if (firstResult_ && scene_->selection().query < 0 && n > 1) {
        // Open on a worked example rather than an empty math panel.
        scene_->setSelection(Selection{1, -1, 0});
    }
    firstResult_ = false;
    scene_->clampSelection(n, m, h);
    const attn::SceneSpec& s = scene_->spec();
    sizeLabel_->setText(!s.is_synthetic() ? tr("n = %1 × %2 · h = %3 · layer %4/%5")
                                                .arg(n)
                                                .arg(m)
                                                .arg(h)
                                                .arg(result->layer + 1)
                                                .arg(result->layers)
                                          : tr("n = %1 · d_model = %2 · h = %3 · d_k = %4")
                                                .arg(n)
                                                .arg(s.d_model)
                                                .arg(h)
                                                .arg(result->d_k));
    timeLabel_->setText(tr("computed in %1 ms").arg(ms, 0, 'f', ms < 10 ? 2 : 0));
    const QString changes = runChanges(shown);
    changesLabel_->setText(changes.isEmpty() ? QString()
                                             : tr("Not the model's own run: %1").arg(changes));
    showRunChanges();
    Q_EMIT resultChanged(result);
}

void MainWindow::showRunChanges() {
    changesLabel_->setVisible(!changesLabel_->text().isEmpty() &&
                              statusBar()->currentMessage().isEmpty());
}

void MainWindow::onFailed(const QString& message) {
    grid_->setMessage(
        tr("Cannot compute this scene: %1\nShown below: the last scene computed.").arg(message));
    statusBar()->showMessage(message, 8000);
    // The last result's size and time are not the scene's on show.
    sizeLabel_->setText(tr("not computed"));
    timeLabel_->clear();
}

void MainWindow::onSelectionChanged() {
    const Selection& s = scene_->selection();
    grid_->setSelection(s);
    weights_->setSelection(s);
    math_->setSelection(s);
    views_->setSelection(s);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    event->accept();
}
