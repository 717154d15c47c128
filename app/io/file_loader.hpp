// AttnScope — turns any supported file into the scene spec that shows it. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <memory>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"

struct BatchSummary;

namespace fileio {

struct ReopenedSeq2Seq;

/// The outcome of reading a file: the spec to show, and for sessions the app's own state.
struct Opened {
    attn::SceneSpec spec;
    bool isSession = false;
    QString viewsJson;  ///< a session's opaque app part (views, playground); "{}" otherwise
    QString undoText;   ///< e.g. "Open gpt2.npz"
    /// What the user should hear though the file opened: a session's model folder that holds
    /// another model than it recorded ("" = nothing to say).
    QString warning;
    /// A batch result (an .npz with per_example/ or aggregate/ keys): shown in the Batch tab,
    /// the scene left as it is (spec and the rest unset).
    std::shared_ptr<const BatchSummary> batch;
    /// A session's encoder–decoder run, opened and run again (spec shows its attention): the
    /// Translation dock takes it.
    std::shared_ptr<const ReopenedSeq2Seq> seq2seq;
};

/// Reads `path` with core's loaders and builds the spec that shows it, keeping the controls of
/// `current` (scaling, temperature, mask kind, …) for attention and token files; a session
/// replaces everything. Nothing is changed anywhere: the caller applies the result. Throws
/// attn::Error (FormatError naming the file) or attn::Cancelled. A batch result is read and
/// summarised (Opened::batch), the rest left empty.
Opened readFile(const QString& path, const attn::SceneSpec& current,
                attn::Progress* progress = nullptr);

/// Loads explicit embeddings (.npy [n×d] or .csv) for the tokens of `current`; the new spec
/// uses them and their width as d_model. Throws attn::Error.
attn::SceneSpec withEmbeddings(const QString& path, const attn::SceneSpec& current);

/// The component index named `name` (case-insensitive) or given as a number; -1 when none.
int findComponent(const attn::SceneSpec& spec, const QString& name);
/// Names of the loaded components ("0 (unnamed)" when empty), for messages and menus.
QString componentList(const attn::SceneSpec& spec);

}  // namespace fileio
