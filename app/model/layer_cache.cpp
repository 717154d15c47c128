// AttnScope — every layer of the scene computed once. GPL-3.0-or-later.
#include "model/layer_cache.hpp"

#include <QThread>

#include "attn/analysis/rollout.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"
#include "model/compute_service.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"

namespace {
const QString kLayersJob = QStringLiteral("layers");
}  // namespace

void LayerCache::Counter::add(attn::Index layer) {
    const std::lock_guard lock(mutex);
    if (perLayer.size() <= std::size_t(layer)) perLayer.resize(std::size_t(layer) + 1, 0);
    ++perLayer[std::size_t(layer)];
}

LayerCache::LayerCache(Scene* scene) : QObject(scene), scene_(scene) {
    setObjectName(QStringLiteral("layerCache"));
}

LayerCache* LayerCache::of(Scene* scene) {
    if (auto* cache = scene->findChild<LayerCache*>(QString(), Qt::FindDirectChildrenOnly))
        return cache;
    return new LayerCache(scene);
}

attn::SceneSpec LayerCache::keyOf(const attn::SceneSpec& spec) {
    attn::SceneSpec key = spec;
    // Every layer is computed whichever one is shown: the shown layer is no part of the key.
    if (attn::layer_count(spec) > 1) key.layer = 0;
    return key;
}

void LayerCache::setComputeService(ComputeService* service) {
    if (compute_ == service) return;
    if (compute_) disconnect(compute_, nullptr, this, nullptr);
    compute_ = service;
    if (!compute_) return;
    compute_->setRunCache(runs_);  // the shown layer's runs are the layers' runs
    // The scene's own layer arrives: the layers waiting for it can start.
    const auto resume = [this] {
        if (compute_->busy()) return;  // a preview, or an older request
        Q_EMIT sceneSettled();
        if (wanted_) start();
    };
    connect(compute_, &ComputeService::resultReady, this, resume);
    connect(compute_, &ComputeService::failed, this, resume);
}

bool LayerCache::current() const {
    return set_ && set_->key == keyOf(scene_->spec());
}

void LayerCache::want() {
    const attn::SceneSpec key = keyOf(scene_->spec());
    if (current() || (running_ && *running_ == key)) return;
    wanted_ = true;
    // While the window computes the scene's own layer, wait for it (resultReady resumes).
    if (compute_ && compute_->busy()) return;
    start();
}

SceneResultPtr LayerCache::heldResult(const attn::SceneSpec& spec) const {
    if (compute_ && compute_->result() && compute_->resultSpec() == spec) return compute_->result();
    return nullptr;
}

std::function<SceneResultPtr(attn::Progress&)> LayerCache::sceneFor(const attn::SceneSpec& spec,
                                                                    bool needVectors) const {
    SceneResultPtr held = heldResult(spec);
    if (held && needVectors && !held->has_vectors) held.reset();
    return [held, spec, kept = kept_, runs = runs_,
            gui = QThread::currentThread()](attn::Progress& progress) -> SceneResultPtr {
        if (held) return held;
        {
            const std::lock_guard lock(kept->mutex);
            if (kept->result && kept->spec == spec) return kept->result;
        }
        // A long scene is streamed: a reader recomputes its rows, nothing n × n is kept.
        const attn::Storage storage = attn::storage_for(spec);
        auto result = std::make_shared<const attn::SceneResult>(
            spec.is_model() ? runs->scene(spec, &progress, storage)
                            : attn::compute_scene(spec, &progress, storage));
        const std::lock_guard lock(kept->mutex);
        kept->spec = spec;
        kept->result = result;
        ++kept->computed;
        kept->offGuiThread = QThread::currentThread() != gui;
        return result;
    };
}

void LayerCache::release() {
    runs_->clear();
    SceneResultPtr gone;  // freed outside the lock
    const std::lock_guard lock(kept_->mutex);
    gone.swap(kept_->result);
}

int LayerCache::scenesComputed() const {
    const std::lock_guard lock(kept_->mutex);
    return kept_->computed;
}

bool LayerCache::lastSceneOffGuiThread() const {
    const std::lock_guard lock(kept_->mutex);
    return kept_->offGuiThread;
}

bool LayerCache::sceneBusy() const {
    return compute_ && compute_->busy();
}

void LayerCache::start() {
    wanted_ = false;
    attn::SceneSpec spec = scene_->spec();
    const attn::SceneSpec key = keyOf(spec);
    if (current()) return;
    // The service's last result has this key: its layer is one of ours, computed already.
    SceneResultPtr known;
    if (compute_ && compute_->result() && keyOf(compute_->resultSpec()) == key) {
        spec = compute_->resultSpec();
        known = compute_->result();
    }
    running_ = key;
    Scheduler::instance().run(
        this, kLayersJob,
        [spec, known, counter = counter_, runs = runs_](attn::Progress& progress) {
            return compute(spec, known.get(), &progress, *counter, *runs);
        },
        [this](LayerSetPtr set) { deliver(std::move(set)); },
        [this](const QString& message) {
            running_.reset();
            Q_EMIT layersFailed(message);
        });
}

void LayerCache::computeNow(const attn::SceneResult* known) {
    Scheduler::instance().cancel(this, kLayersJob);
    wanted_ = false;
    deliver(compute(scene_->spec(), known, nullptr, *counter_, *runs_));
}

void LayerCache::deliver(LayerSetPtr set) {
    running_.reset();
    set_ = std::move(set);
    Q_EMIT layersReady();
}

std::vector<int> LayerCache::computedLayers() const {
    const std::lock_guard lock(counter_->mutex);
    return counter_->perLayer;
}

LayerSetPtr LayerCache::compute(const attn::SceneSpec& spec, const attn::SceneResult* known,
                                attn::Progress* progress, Counter& counter, RunCache& runs) {
    auto set = std::make_shared<LayerSet>();
    // A model's layers come out of one run: the window's kept run (its shown layer read out of
    // it here), never a run of their own.
    std::optional<attn::SceneResult> shown;
    if (!known && spec.is_model()) {
        try {
            shown = runs.scene(spec, progress, attn::Storage::Weights);
            counter.add(spec.layer);
            known = &*shown;
        } catch (const attn::Cancelled&) {
            throw;
        } catch (const std::exception&) {
            // for_each_layer below reports the failure in the layers' words
        }
    }
    set->key = keyOf(spec);
    model_grid::Thumbnails& thumbs = set->thumbs;
    model_grid::Thumbnails small;
    thumbs.title = model_grid::sceneTitle(spec);
    thumbs.layers = static_cast<int>(attn::layer_count(spec));
    set->census.layers = thumbs.layers;
    attn::RolloutAccumulator rollout;
    const auto failed = [](const std::exception& e) { return QString::fromUtf8(e.what()); };
    try {
        attn::for_each_layer(
            spec,
            [&](attn::Index l, const attn::SceneResult& r) {
                if (&r != known) counter.add(l);
                model_grid::addLayer(thumbs, r, kThumbSide);
                model_grid::addLayer(small, r, kCensusThumbSide);
                if (set->censusError.isEmpty()) {
                    try {
                        if (r.storage == attn::Storage::Streamed)
                            throw attn::ArgumentError(
                                "the census needs every weight, and this sequence is too long "
                                "to keep them");
                        std::vector<attn::HeadCensus> heads = attn::census_layer(r);
                        set->census.heads = static_cast<attn::Index>(heads.size());
                        for (attn::HeadCensus& h : heads) {
                            h.layer = l;
                            set->census.entries.push_back(h);
                        }
                    } catch (const attn::Error& e) {
                        set->censusError = failed(e);
                        set->census.entries.clear();
                    }
                }
                if (set->rolloutError.isEmpty()) {
                    try {
                        if (r.storage == attn::Storage::Streamed)
                            throw attn::ArgumentError(
                                "rollout needs every weight, and this sequence is too long to "
                                "keep them");
                        rollout.add(r);
                    } catch (const attn::Error& e) {
                        set->rolloutError = failed(e);
                    }
                }
            },
            progress, false, known);  // weights and the mask are all the readers need
    } catch (const attn::Cancelled&) {
        throw;  // superseded: the scheduler drops it
    } catch (const std::exception& e) {
        thumbs.error = set->censusError = set->rolloutError = failed(e);
        thumbs.images.clear();
        set->census.entries.clear();
        return set;
    }
    set->censusThumbs = std::move(small.images);
    if (set->rolloutError.isEmpty()) set->rollout = rollout.layers();
    return set;
}
