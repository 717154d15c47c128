// AttnScope — the math panel's notes on what the views combine: merged words, several keys.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/scene/scene.hpp"
#include "model/selection.hpp"

/// A paragraph saying that the result shows words merged from sub-word pieces, which pieces
/// query word q holds and how they were combined; empty when the result is not merged.
QString mergedWordsNote(const attn::SceneResult& result, int query);

/// With several keys selected: a paragraph naming them and giving the selected queries'
/// weight on them, summed or averaged as the selection says; empty otherwise.
QString selectedKeysNote(const attn::SceneResult& result, const Selection& selection);
