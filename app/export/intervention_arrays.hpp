// AttnScope — the Interventions tab's numbers as named NumPy arrays (.npz). GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/io/numpy/numpy_attention.hpp"

class QWidget;

namespace exporting {

/// The named arrays of the Interventions page VIEW shows (VIEW: the tab or one of its views):
/// every map as a labelled matrix with the prompt, tokens and answers it was computed from
/// (docs/session-format.md lists them). False when VIEW is none of them; an empty *ARRAYS when
/// it has nothing computed yet.
bool interventionArraysOfView(QWidget* view, attn::io::NpzMembers* arrays);

/// Writes VIEW's arrays to PATH (.npz); an empty string, or the problem naming the file.
QString writeInterventionArrays(QWidget* view, const QString& path);

}  // namespace exporting
