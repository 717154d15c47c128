// AttnScope — the Interventions tab and the Heads tab's context menu on an encoder–decoder's
// run, wired to the Translation dock. GPL-3.0-or-later.
#pragma once

class InterventionsTab;
class MainWindow;

namespace fileio {

class ModelController;

/// The Interventions tab's seq2seq view runs the Translation dock's sentences while the scene is
/// the dock's run; right-clicking a head of the Heads tab then offers to ablate (or restore) it
/// in the component shown, through the dock (one run, one undo step).
void connectSeq2SeqInterventions(MainWindow* window, ModelController* models,
                                 InterventionsTab* interventions);

}  // namespace fileio
