// AttnScope — computes scenes off the GUI thread; the newest request wins. GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "attn/scene/scene.hpp"
#include "model/input_cache.hpp"
#include "model/scene_result.hpp"

class RunCache;

/// Turns SceneSpecs into SceneResults. Small scenes (cheaper than a frame) are computed at once
/// on the calling thread; larger ones as the scheduler's job "scene". Every request gets an
/// increasing id: a running computation is cancelled as soon as a newer request arrives, requests
/// queued behind it are skipped except the newest, and a result is only delivered when it is newer
/// than the last delivered one — an older result is never drawn over a newer one.
class ComputeService : public QObject {
    Q_OBJECT
  public:
    explicit ComputeService(QObject* parent = nullptr);
    ~ComputeService() override;

    /// Asks for spec to be computed; returns the request id.
    quint64 request(const attn::SceneSpec& spec);

    /// Where model scenes take their runs (the scene's LayerCache::runs(), set before the first
    /// request); without one each model scene runs its model afresh (headless uses).
    void setRunCache(std::shared_ptr<RunCache> runs) { runs_ = std::move(runs); }

    /// Work (≈ multiply-adds) below which request() computes synchronously; 0: always async.
    void setSyncThreshold(double work) { syncThreshold_ = work; }
    double syncThreshold() const { return syncThreshold_; }
    /// Rough cost of computing spec (multiply-adds), used to choose sync or async.
    static double estimateWork(const attn::SceneSpec& spec);
    /// Whether a computed scene keeps its raw/scaled/masked matrices: only while they are small.
    /// Longer sequences keep weights alone, long ones nothing n × n (attn::storage_for), and the
    /// views recompute a selected row's scores and a zoomed region's weights on demand.
    static bool keepsStages(const attn::SceneSpec& spec);
    /// attn::storage_for, with invalid specs (they fail when computed) as Stages.
    static attn::Storage storageFor(const attn::SceneSpec& spec);
    /// Score cells (queries × keys × heads) above which stages are not kept.
    static constexpr double kStageCellLimit = attn::kStageCellLimit;

    /// The last delivered result (null before the first).
    SceneResultPtr result() const { return result_; }
    /// The spec the last delivered result was computed from (what its numbers are of: the
    /// temperature and score the math panel names, the layer the Model view need not redo).
    const attn::SceneSpec& resultSpec() const { return resultSpec_; }
    quint64 lastRequested() const { return requested_.load(); }
    quint64 lastDelivered() const { return delivered_; }
    /// Milliseconds the last delivered result took to compute.
    double lastComputeMs() const { return lastMs_; }
    /// Computations that reused the buffers of a released result (tests, diagnostics).
    quint64 reusedBuffers() const { return reused_.load(); }
    /// Coarse previews delivered so far (long, streamed scenes; tests and diagnostics).
    quint64 previewsDelivered() const { return previews_; }
    /// True while a request newer than the delivered result is outstanding.
    bool busy() const { return delivered_ < requested_.load(); }
    /// Blocks until the worker has nothing left to do, then delivers what it posted (tests,
    /// benchmarks and the command line use it; the GUI never blocks).
    void waitForIdle();

  Q_SIGNALS:
    /// A result newer than every result delivered before.
    void resultReady(SceneResultPtr result, quint64 id, double milliseconds);
    /// The computation of request id failed (e.g. an empty sentence); message is for the user.
    void failed(const QString& message, quint64 id);
    void busyChanged(bool busy);

  private:
    /// Holds the last result nobody uses any more, for compute_scene to reuse its buffers.
    /// Shared with the deleters of delivered results, which may outlive the service.
    class Recycler {
      public:
        void put(attn::SceneResult* r);
        std::unique_ptr<attn::SceneResult> take();

      private:
        std::mutex mutex_;
        std::unique_ptr<attn::SceneResult> held_;
    };
    /// Opened when a streamed request's preview is over (delivered, failed or cancelled); the
    /// exact pass waits for it.
    class PreviewGate {
      public:
        void open();
        /// Blocks until open; throws attn::Cancelled once progress is cancelled.
        void wait(const attn::Progress& progress);
        /// Opens the gate when it goes out of scope.
        struct Opener {
            PreviewGate* gate;
            ~Opener() {
                if (gate) gate->open();
            }
        };

      private:
        std::mutex mutex_;
        std::condition_variable opened_;
        bool open_ = false;
    };
    struct Outcome {
        attn::SceneSpec spec;
        SceneResultPtr result;
        QString error;
        double ms = 0;
    };
    /// The last delivered result and its spec, which a request continues from.
    struct Base {
        SceneResultPtr result;
        attn::SceneSpec spec;
    };
    /// Computes spec (on any thread) from base where attn::restart_from allows (a temperature,
    /// scaling or mask change re-runs only the softmax from base's raw scores); throws
    /// attn::Cancelled when a newer request exists.
    Outcome compute(const attn::SceneSpec& spec, quint64 id, attn::Progress* job, const Base& base);
    /// The scene of spec (every queryStride-th query: a preview) from base where
    /// attn::restart_from allows, with the cached inputs; any thread.
    attn::SceneResult continueFrom(const Base& base, const attn::SceneSpec& spec,
                                   attn::Progress* progress, attn::SceneResult* recycle,
                                   attn::Index queryStride);
    void settle(quint64 id, Outcome outcome);
    void deliver(quint64 id, SceneResultPtr result, attn::SceneSpec spec, double ms);
    void fail(quint64 id, const QString& message);
    /// Hands a coarse preview of request id to the views (resultReady), unless its exact result
    /// or a newer request came first; result() stays the last exact result.
    void deliverPreview(quint64 id, SceneResultPtr preview, double ms);

    std::atomic<quint64> requested_{0};
    std::atomic<quint64> reused_{0};
    quint64 previews_ = 0;
    quint64 delivered_ = 0;
    SceneResultPtr result_;
    attn::SceneSpec resultSpec_;
    double lastMs_ = 0;
    double syncThreshold_ = 4e6;
    bool wasBusy_ = false;

    InputCache inputs_;
    std::shared_ptr<RunCache> runs_;
    std::shared_ptr<Recycler> recycler_ = std::make_shared<Recycler>();
};
