// AttnScope — the Influence view's words: each method's name, definition and reference, and
// the caution that goes with them. GPL-3.0-or-later.
#pragma once

#include <QString>

namespace influence_text {

/// The method's name as a strip's label ("Integrated gradients").
QString name(const QString& key);
/// A short name for a matrix's column ("IG", "Rollout"): whole words, never elided.
QString shortName(const QString& key);
/// One sentence: what the method computes here, with its reference.
QString explanation(const QString& key);
/// The one-sentence caution: attention shows where a head looked, these what changed the output.
QString caution();
/// The Methods page: the caution, then every method's name, definition and reference (HTML).
QString methodsPage();

}  // namespace influence_text
