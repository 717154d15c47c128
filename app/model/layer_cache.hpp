// AttnScope — every layer of the scene computed once, for every view that reads all layers.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "attn/analysis/census.hpp"
#include "attn/scene/scene.hpp"
#include "model/layer_thumbnails.hpp"
#include "model/run_cache.hpp"
#include "model/scene_result.hpp"

class ComputeService;
class Scene;

/// What the views that read every layer need of them, reduced as each layer is computed (the
/// layer's n × n matrices are freed before the next one is computed).
struct LayerSet {
    attn::SceneSpec key;                 ///< the spec, shown layer aside (LayerCache::keyOf)
    model_grid::Thumbnails thumbs;       ///< the Model tab's thumbnails (error: the whole failed)
    std::vector<QImage> censusThumbs;    ///< the census table's smaller thumbnails
    attn::Census census;                 ///< every head's census
    QString censusError;                 ///< why there is no census (cross-attention, …)
    std::vector<attn::MatrixD> rollout;  ///< R_0 … R_{L−1}
    QString rolloutError;                ///< why there is no rollout
};
using LayerSetPtr = std::shared_ptr<const LayerSet>;

/// The one place the layers of a scene are computed: the Model tab's thumbnails, the census,
/// the rollout all read the same LayerSet, computed as the scheduler's job "layers" of the
/// cache. The layer the window's ComputeService has just computed is taken from its result, and
/// a change of the shown layer alone (same key) computes nothing. Readers of the scene (the
/// lenses) take it through sceneFor() inside their scheduler jobs, and every model run of the
/// scene is kept in runs(). One cache per Scene (of()).
class LayerCache : public QObject {
    Q_OBJECT
  public:
    /// Thumbnail sides of the Model tab and of the census table.
    static constexpr int kThumbSide = 96;
    static constexpr int kCensusThumbSide = 36;

    /// The cache of scene (created, as its child, on first use).
    static LayerCache* of(Scene* scene);
    /// The cache's key of spec: spec with the shown layer aside (it does not change the layers).
    static attn::SceneSpec keyOf(const attn::SceneSpec& spec);

    /// Takes the shown layer from service's results instead of computing it again, and waits
    /// for them while it computes.
    void setComputeService(ComputeService* service);
    ComputeService* computeService() const { return compute_; }

    /// The newest layers delivered (null before the first); current() says whether they are of
    /// the scene's spec.
    LayerSetPtr layers() const { return set_; }
    bool current() const;
    /// A visible view needs the scene's layers: computes them (once) unless they are current.
    /// layersReady follows.
    void want();
    /// Computes the scene's layers now, on this thread (headless rendering and tests).
    void computeNow(const attn::SceneResult* known = nullptr);
    /// The scene of spec as the ComputeService holds it (null when it holds another spec).
    SceneResultPtr heldResult(const attn::SceneSpec& spec) const;
    /// A reader's computation of spec's scene, to run inside its scheduler job (call this on
    /// the GUI thread, the function on the job's worker): the scene the ComputeService holds
    /// when it has what the reader needs (needVectors: has_vectors), else the one an earlier
    /// reader had computed, else computed now (attn::storage_for(spec); a model's run from
    /// runs()) and kept for the next reader.
    std::function<SceneResultPtr(attn::Progress&)> sceneFor(const attn::SceneSpec& spec,
                                                            bool needVectors) const;
    /// Scenes sceneFor's computations computed, and whether the last one ran off the thread
    /// that made this cache (tests: a second reader computes nothing, an export nothing on the
    /// GUI thread).
    int scenesComputed() const;
    bool lastSceneOffGuiThread() const;
    /// The scene's kept model runs, shared with the ComputeService and the readers' jobs.
    const std::shared_ptr<RunCache>& runs() const { return runs_; }
    /// Forgets the kept runs and the readers' kept scene (a model closed: its memory goes now).
    void release();

    /// True while the ComputeService computes a newer scene than it holds (sceneSettled
    /// follows): readers of heldResult() wait instead of computing it again.
    bool sceneBusy() const;

    /// Layers computed by this cache since it was made, per layer index (tests: a control
    /// change computes each layer once).
    std::vector<int> computedLayers() const;

  Q_SIGNALS:
    /// New layers were delivered (layers()).
    void layersReady();
    /// Computing the layers failed or was refused; message is for the user.
    void layersFailed(const QString& message);
    /// The ComputeService delivered (or failed) its newest request.
    void sceneSettled();

  private:
    explicit LayerCache(Scene* scene);
    void start();
    /// Computes the layers of spec on any thread, taking known (spec's own layer) as is.
    /// Counts the layers computed, from any thread.
    struct Counter {
        std::mutex mutex;
        std::vector<int> perLayer;
        void add(attn::Index layer);
    };
    /// The scene the last reader computed (sceneFor), shared with the readers' jobs.
    struct KeptScene {
        mutable std::mutex mutex;
        attn::SceneSpec spec;
        SceneResultPtr result;
        int computed = 0;
        bool offGuiThread = false;
    };
    static LayerSetPtr compute(const attn::SceneSpec& spec, const attn::SceneResult* known,
                               attn::Progress* progress, Counter& counter, RunCache& runs);
    void deliver(LayerSetPtr set);

    Scene* scene_;
    ComputeService* compute_ = nullptr;
    LayerSetPtr set_;
    std::optional<attn::SceneSpec> running_;  ///< key of the job under way
    bool wanted_ = false;
    bool queued_ = false;
    std::shared_ptr<Counter> counter_ = std::make_shared<Counter>();
    std::shared_ptr<RunCache> runs_ = std::make_shared<RunCache>();
    std::shared_ptr<KeptScene> kept_ = std::make_shared<KeptScene>();
};
