// AttnScope — every QSettings key in one place. GPL-3.0-or-later.
#pragma once

#include <QLatin1StringView>

/// Keys of QSettings; grouped by prefix so the settings file stays readable.
namespace settings_keys {

// Window layout.
inline constexpr QLatin1StringView kWindowGeometry{"window/geometry"};
inline constexpr QLatin1StringView kWindowState{"window/state"};
inline constexpr QLatin1StringView kCurrentTab{"window/currentTab"};

// Files (used by the data/IO module: Open, Save, Recent).
inline constexpr QLatin1StringView kLastDirectory{"files/lastDirectory"};
/// Where Model ▸ Open Model… last found a model folder.
inline constexpr QLatin1StringView kLastModelDirectory{"model/lastDirectory"};
inline constexpr QLatin1StringView kRecentFiles{"files/recent"};
inline constexpr int kMaxRecentFiles = 10;
inline constexpr QLatin1StringView kEmbedData{"files/embedData"};
// Export: its own folder (never the data's) and resolution.
inline constexpr QLatin1StringView kLastExportDirectory{"export/lastDirectory"};
inline constexpr QLatin1StringView kExportDpi{"export/dpi"};
inline constexpr QLatin1StringView kExportFormat{"export/format"};
// The one-line hint shown until the user closes it.
inline constexpr QLatin1StringView kHintDismissed{"window/hintDismissed"};

// Heatmap display (undoable; saved in sessions; the last one is the next launch's default).
inline constexpr QLatin1StringView kColorMap{"display/colorMap"};
inline constexpr QLatin1StringView kLogScale{"display/logScale"};
inline constexpr QLatin1StringView kSharedRange{"display/sharedRange"};
inline constexpr QLatin1StringView kAggregation{"display/aggregation"};

// Resources: the memory budget every large allocation is checked against ("12G", "512M"; unset:
// half the physical memory), as the command line's --memory-budget.
inline constexpr QLatin1StringView kMemoryBudget{"resources/memoryBudget"};

}  // namespace settings_keys
