// AttnScope — the window's kept model runs: another layer, head or reader of the same run, an
// undo or a control toggled back never runs the model again. GPL-3.0-or-later.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "attn/scene/model_scene.hpp"

/// The last two model runs of a scene, and the one place runs are kept: core computes each run
/// afresh and holds none. One per Scene, owned by its LayerCache (LayerCache::runs()), which
/// hands it to the ComputeService (the shown layer); the layers, the lenses and the
/// Interventions tab's views take their runs here too. Any thread: one mutex guards the
/// entries, and runs are computed (and freed) outside it.
class RunCache {
  public:
    /// spec's run: the kept one of the same model, ids and controls, else computed
    /// (attn::model::compute_run, continuing from the kept run of the same model and controls
    /// that shares the longest start of its ids) and kept. While another thread computes the
    /// same run, this waits for it rather than compute it twice. PROGRESS may cancel (also the
    /// wait); throws what compute_run throws.
    std::shared_ptr<const attn::model::Run> run(const attn::SceneSpec& spec,
                                                attn::Progress* progress = nullptr);
    /// spec's scene (a model scene) as attn::compute_scene(spec, progress, storage) computes
    /// it, its run taken from run(spec).
    attn::SceneResult scene(const attn::SceneSpec& spec, attn::Progress* progress,
                            attn::Storage storage);
    /// Forgets the kept runs: their memory (gigabytes for a long text) goes now.
    void clear();
    /// Runs computed so far (tests: another layer or reader of the same run computes none).
    int computed() const;

  private:
    /// What a run depends on; the folder by identity (weak: closing it frees the weights).
    struct Key {
        std::weak_ptr<const attn::model::ModelFolder> folder;
        const attn::model::ModelFolder* address = nullptr;
        std::vector<std::int32_t> ids;
        attn::model::RunControls controls;
        /// Same live model and controls (the ids may differ).
        bool sameRunOf(const Key& o) const;
    };
    using Entry = std::pair<Key, std::shared_ptr<const attn::model::Run>>;
    /// The kept run of key, else the kept run of the same model and controls sharing the
    /// longest start of key's ids (*exact false), else null.
    std::shared_ptr<const attn::model::Run> lookup(const Key& key, bool* exact) const;
    /// Whether another thread computes key's run now (mutex_ held).
    bool computing(const Key& key) const;
    /// Ends this thread's computation of key: kept when RUN is given; waiters wake.
    void finish(const Key& key, std::shared_ptr<const attn::model::Run> run);

    mutable std::mutex mutex_;
    std::condition_variable computedOne_;  ///< a computation of computing_ ended
    std::deque<Entry> entries_;            ///< newest first
    std::vector<Key> computing_;           ///< runs being computed, by any thread
    int computed_ = 0;
};
