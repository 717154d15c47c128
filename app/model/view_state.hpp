// AttnScope — the view state: everything about how the scene is shown that is not the scene
// (heatmap style, focused head, zoom, open tabs, the views' options, each lens's settings, the
// playground), with the stable keys a session stores it under. GPL-3.0-or-later.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QString>

#include "model/heatmap_style.hpp"
#include "model/heatmap_viewport.hpp"
#include "model/view_options.hpp"

class PlaygroundModel;
class Scene;

/// The keys of the view state in a session's "views" object and of the tabs: constants, never
/// a tab title or a control's label, which a translation changes (docs/session-format.md).
namespace view_keys {
inline constexpr char kDisplay[] = "display";
inline constexpr char kColorMap[] = "colormap";
inline constexpr char kLogScale[] = "log_scale";
inline constexpr char kSharedRange[] = "shared_range";
inline constexpr char kBlocks[] = "blocks";
inline constexpr char kFocusedHead[] = "focused_head";
inline constexpr char kSelection[] = "selection";
inline constexpr char kPlayground[] = "playground";
inline constexpr char kOpenTab[] = "open_tab";            ///< one of the tab keys below
inline constexpr char kLensSettings[] = "lens_settings";  ///< lens → control key → value
inline constexpr char kZoom[] = "zoom";                   ///< the zoomed heads' regions
inline constexpr char kViewOptions[] = "view_options";    ///< the Views tab's options
inline constexpr char kInnerTabs[] = "inner_tabs";        ///< tab key → its open inner tab
/// Sessions of 0.1 (read, never written): the open tab's English title, and each lens's
/// controls keyed by their English labels.
inline constexpr char kLegacyTab[] = "tab";
inline constexpr char kLegacyLenses[] = "lenses";
// The tabs of the window.
inline constexpr char kTabHeads[] = "heads";
inline constexpr char kTabPlayground[] = "playground";
inline constexpr char kTabTheory[] = "theory";
inline constexpr char kTabViews[] = "views";
inline constexpr char kTabModel[] = "model";
inline constexpr char kTabInterventions[] = "interventions";
inline constexpr char kTabInfluence[] = "influence";
// The Views tab's inner tabs (the Theory tab's are the lenses' registry names).
inline constexpr char kViewLines[] = "lines";
inline constexpr char kViewText[] = "text";
inline constexpr char kViewNeuron[] = "neuron";
inline constexpr char kViewRollout[] = "rollout";
inline constexpr char kViewQk[] = "qk";
/// The dynamic property holding a tab page's key (outer and inner tabs).
inline constexpr char kKeyProperty[] = "attnViewKey";
}  // namespace view_keys

/// The one owner of the view state. The docks and lenses edit it (editStyle, editLensSettings
/// go through the scene's undo stack), the widgets follow its signals, and sessions save and
/// restore it, not the widgets. Looking (zoom, tabs, focus, the views' options) is no edit.
class ViewState : public QObject {
    Q_OBJECT
  public:
    /// The view state of scene's window (made on first use, a child of the scene).
    static ViewState* of(Scene* scene);

    const HeatmapStyle& style() const { return style_; }
    /// Sets the style at once (settings, undo and redo, a session); styleChanged when it differs.
    void setStyle(const HeatmapStyle& style);
    /// A user's edit: one undo step named `what` on the scene's stack.
    void editStyle(const HeatmapStyle& style, const QString& what);

    /// The head shown alone in the grid (−1: every head).
    int focusedHead() const { return focusedHead_; }
    void setFocusedHead(int head);

    /// The key of the open tab (view_keys::kTab…; "" before a tab is shown).
    const QString& openTab() const { return openTab_; }
    void setOpenTab(const QString& key);

    /// A lens's controls by their keys (empty when none were set).
    QJsonObject lensSettings(const QString& lens) const { return lenses_.value(lens); }
    const QHash<QString, QJsonObject>& allLensSettings() const { return lenses_; }
    /// Records a lens's controls; lensSettingsChanged when they differ.
    void setLensSettings(const QString& lens, const QJsonObject& settings);
    /// A user's edit of a lens's controls: one undo step named `what`. Edits with the same
    /// non-empty mergeKey (a control's key: a slider drag, typing) within the scene's merge
    /// window merge into one step.
    void editLensSettings(const QString& lens, const QJsonObject& settings, const QString& what,
                          const QString& mergeKey = QString());

    /// The zoomed region of head h (empty, n = 0, when it shows its whole matrix).
    HeatmapViewport zoom(int head) const { return zooms_.value(head); }
    /// Every zoomed head's region, by head.
    const QMap<int, HeatmapViewport>& zooms() const { return zooms_; }
    /// Records head h's region (a whole one: not zoomed); zoomChanged when it differs.
    void setZoom(int head, const HeatmapViewport& region);

    const ViewOptions& viewOptions() const { return viewOptions_; }
    void setViewOptions(const ViewOptions& options);

    /// The open inner tab of tab `tab` (view_keys::kTabTheory: a lens; kTabViews: kView…).
    QString innerTab(const QString& tab) const { return innerTabs_.value(tab); }
    const QMap<QString, QString>& innerTabs() const { return innerTabs_; }
    void setInnerTab(const QString& tab, const QString& key);

    /// The playground's state, its undo and its selection: the Playground tab is its view.
    PlaygroundModel* playground() const { return playground_; }

  Q_SIGNALS:
    void styleChanged(const HeatmapStyle& style);
    void focusedHeadChanged(int head);
    void openTabChanged(const QString& key);
    void lensSettingsChanged(const QString& lens, const QJsonObject& settings);
    void zoomChanged(int head, const HeatmapViewport& region);
    void viewOptionsChanged(const ViewOptions& options);
    void innerTabChanged(const QString& tab, const QString& key);

  private:
    explicit ViewState(Scene* scene);
    Scene* scene_;
    HeatmapStyle style_;
    int focusedHead_ = -1;
    QString openTab_;
    QHash<QString, QJsonObject> lenses_;
    QMap<int, HeatmapViewport> zooms_;
    ViewOptions viewOptions_;
    QMap<QString, QString> innerTabs_;
    PlaygroundModel* playground_;
};
