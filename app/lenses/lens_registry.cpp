// AttnScope — the lens registry. GPL-3.0-or-later.
#include "lenses/lens_registry.hpp"

#include <QCoreApplication>

#include "lenses/alignment_lens.hpp"
#include "lenses/cost_lens.hpp"
#include "lenses/efficient_lens.hpp"
#include "lenses/entropy_lens.hpp"
#include "lenses/lookup_lens.hpp"
#include "lenses/low_rank_lens.hpp"
#include "lenses/rank_collapse_lens.hpp"
#include "lenses/scaling_lens.hpp"

QStringList lensNames() {
    return {QStringLiteral("scaling"),       QStringLiteral("entropy"),
            QStringLiteral("rank-collapse"), QStringLiteral("cost"),
            QStringLiteral("low-rank"),      QStringLiteral("efficient"),
            QStringLiteral("alignment"),     QStringLiteral("lookup")};
}

QString lensTitle(const QString& name) {
    const auto tr = [](const char* s) { return QCoreApplication::translate("Lenses", s); };
    if (name == QLatin1StringView("scaling")) return tr("Scaling");
    if (name == QLatin1StringView("entropy")) return tr("Entropy");
    if (name == QLatin1StringView("rank-collapse")) return tr("Rank collapse");
    if (name == QLatin1StringView("cost")) return tr("Cost");
    if (name == QLatin1StringView("low-rank")) return tr("Low rank");
    if (name == QLatin1StringView("efficient")) return tr("Efficient");
    if (name == QLatin1StringView("alignment")) return tr("Alignment");
    if (name == QLatin1StringView("lookup")) return tr("Lookup");
    return {};
}

QWidget* createLens(const QString& name, Scene* scene, QWidget* parent) {
    if (name == QLatin1StringView("scaling")) return new ScalingLens(scene, parent);
    if (name == QLatin1StringView("entropy")) return new EntropyLens(scene, parent);
    if (name == QLatin1StringView("rank-collapse")) return new RankCollapseLens(scene, parent);
    if (name == QLatin1StringView("cost")) return new CostLens(scene, parent);
    if (name == QLatin1StringView("low-rank")) return new LowRankLens(scene, parent);
    if (name == QLatin1StringView("efficient")) return new EfficientLens(scene, parent);
    if (name == QLatin1StringView("alignment")) return new AlignmentLens(scene, parent);
    if (name == QLatin1StringView("lookup")) return new LookupLens(scene, parent);
    return nullptr;
}
