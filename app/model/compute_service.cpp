// AttnScope — computes scenes off the GUI thread; the newest request wins. GPL-3.0-or-later.
#include "model/compute_service.hpp"

#include <chrono>
#include <new>
#include <utility>

#include "attn/models/model.hpp"
#include "attn/util/error.hpp"
#include "model/error_text.hpp"
#include "model/run_cache.hpp"
#include "model/scheduler.hpp"

namespace {

/// Cancels a computation as soon as a newer request exists (its result would be dropped anyway)
/// or the scheduler cancelled its job; reports progress to the job.
class SupersededProgress : public attn::Progress {
  public:
    SupersededProgress(const std::atomic<quint64>& latest, quint64 id, attn::Progress* job)
        : latest_(latest), id_(id), job_(job) {}
    void update(double f) override {
        if (job_) job_->update(f);
    }
    bool cancelled() const override { return latest_.load() > id_ || (job_ && job_->cancelled()); }

  private:
    const std::atomic<quint64>& latest_;
    quint64 id_;
    attn::Progress* job_;
};

const QString kSceneJob = QStringLiteral("scene");
const QString kPreviewJob = QStringLiteral("scene-preview");
/// A streamed scene's preview computes every kPreviewStride-th query: 1/32 of the work (a 32k
/// scene still has 1024 sampled rows, several per pixel of a heatmap).
constexpr attn::Index kPreviewStride = 32;

double elapsedMs(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
        .count();
}

}  // namespace

void ComputeService::Recycler::put(attn::SceneResult* r) {
    std::unique_ptr<attn::SceneResult> old;
    {
        std::lock_guard lock(mutex_);
        old = std::exchange(held_, std::unique_ptr<attn::SceneResult>(r));
    }
    // `old` (possibly hundreds of MB) is freed here, outside the lock.
}

std::unique_ptr<attn::SceneResult> ComputeService::Recycler::take() {
    std::lock_guard lock(mutex_);
    return std::move(held_);
}

ComputeService::ComputeService(QObject* parent) : QObject(parent) {}

ComputeService::~ComputeService() {
    requested_.fetch_add(1);  // cancels the running computation at its next progress report
    // The job reads this object's members: it must be over before they go.
    Scheduler::instance().cancelAndWait(this);
}

double ComputeService::estimateWork(const attn::SceneSpec& spec) {
    if (spec.is_loaded()) {
        double cells = 0;
        for (const auto& c : spec.data->components)
            cells += double(c.q_tokens.size()) * double(c.k_tokens.size()) * double(c.heads);
        return cells * 20;  // softmax + statistics per cell
    }
    if (spec.is_model()) {
        // The forward pass: per token 24·L·d² multiply-adds (attention and MLP) and the
        // logits' vocabulary × d; a cached run (another layer shown) costs far less.
        const attn::model::ModelInfo& c = spec.model->model->info();
        const double tokens = double(spec.text.size()) / 3 + 1, d = double(c.d_model);
        return tokens * 24 * double(c.layers) * d * d + double(c.vocab) * d;
    }
    double n = 0;
    try {
        n = double(spec.query_tokens().size());
    } catch (const std::exception&) {
        return 0;  // invalid text fails fast, synchronously
    }
    if (!spec.cross_text.empty()) n += double(spec.cross_text.size()) / 4;
    const double d = double(spec.d_model);
    // Projections (4 n d²) + scores and weights·V (2 n² d) + softmax/statistics per cell.
    return 4 * n * d * d + 2 * n * n * d + 20 * n * n * double(spec.heads);
}

bool ComputeService::keepsStages(const attn::SceneSpec& spec) {
    try {
        return attn::storage_for(spec) == attn::Storage::Stages;
    } catch (const std::exception&) {
        return true;  // invalid text: the computation reports it
    }
}

attn::Storage ComputeService::storageFor(const attn::SceneSpec& spec) {
    try {
        return attn::storage_for(spec);
    } catch (const std::exception&) {
        return attn::Storage::Stages;
    }
}

quint64 ComputeService::request(const attn::SceneSpec& spec) {
    const quint64 id = requested_.fetch_add(1) + 1;
    if (!wasBusy_) {
        wasBusy_ = true;
        Q_EMIT busyChanged(true);
    }
    // What is shown now, to continue from (held until the computation is over).
    const Base base{result_, resultSpec_};
    if (estimateWork(spec) < syncThreshold_) {
        // Anything queued is older than this request: drop it.
        Scheduler::instance().cancel(this, kSceneJob);
        try {
            settle(id, compute(spec, id, nullptr, base));
        } catch (const attn::Cancelled&) {
        }
        return id;
    }
    // Coarse first: a streamed scene's preview (every 32nd query) runs before the exact pass,
    // which waits for it, so that the preview has the processors to itself and is drawn within
    // about a second; the exact pass follows (1/32 later than it could have started).
    const bool streamed = storageFor(spec) == attn::Storage::Streamed;
    auto gate = streamed ? std::make_shared<PreviewGate>() : nullptr;
    Scheduler::instance().submit(
        this, kSceneJob, [this, spec, id, gate, base](attn::Progress& job) {
            if (gate) {
                SupersededProgress progress(requested_, id, &job);
                gate->wait(progress);  // throws attn::Cancelled when superseded meanwhile
            }
            if (id < requested_.load()) return Scheduler::Delivery();  // superseded while queued
            auto outcome = std::make_shared<Outcome>(compute(spec, id, &job, base));
            return Scheduler::Delivery([this, id, outcome] { settle(id, std::move(*outcome)); });
        });
    if (streamed) {
        Scheduler::instance().submit(
            this, kPreviewJob, [this, spec, id, gate, base](attn::Progress& job) {
                const PreviewGate::Opener opener{gate.get()};  // however the preview ends
                SupersededProgress progress(requested_, id, &job);
                const auto start = std::chrono::steady_clock::now();
                SceneResultPtr preview;
                try {
                    preview = std::make_shared<const attn::SceneResult>(
                        continueFrom(base, spec, &progress, nullptr, kPreviewStride));
                } catch (const attn::Cancelled&) {
                    throw;
                } catch (const std::exception&) {
                    return Scheduler::Delivery();  // the exact pass reports the error
                }
                const double ms = elapsedMs(start);
                return Scheduler::Delivery(
                    [this, id, preview, ms] { deliverPreview(id, preview, ms); });
            });
    }
    return id;
}

void ComputeService::PreviewGate::open() {
    {
        std::lock_guard lock(mutex_);
        open_ = true;
    }
    opened_.notify_all();
}

void ComputeService::PreviewGate::wait(const attn::Progress& progress) {
    std::unique_lock lock(mutex_);
    // Woken by the preview, or every 20 ms to see whether this request is still wanted (a
    // preview dropped before it started never opens the gate, but then a newer request exists).
    while (!opened_.wait_for(lock, std::chrono::milliseconds(20), [this] { return open_; }))
        if (progress.cancelled()) throw attn::Cancelled();
}

void ComputeService::waitForIdle() {
    Scheduler::instance().waitForIdle(this);
}

ComputeService::Outcome ComputeService::compute(const attn::SceneSpec& spec, quint64 id,
                                                attn::Progress* job, const Base& base) {
    const auto start = std::chrono::steady_clock::now();
    Outcome out;
    out.spec = spec;
    // Reusing the buffers of a result no view shows any more saves page-faulting the n² weights
    // in afresh (a third of the time for long sequences).
    std::unique_ptr<attn::SceneResult> old = recycler_->take();
    if (old) ++reused_;
    try {
        SupersededProgress progress(requested_, id, job);
        auto* fresh = new attn::SceneResult(continueFrom(base, spec, &progress, old.get(), 1));
        out.result = SceneResultPtr(fresh, [bin = recycler_](const attn::SceneResult* r) {
            bin->put(const_cast<attn::SceneResult*>(r));
        });
    } catch (const attn::Cancelled&) {
        if (old) recycler_->put(old.release());  // compute_scene handed its buffers back
        throw;                                   // a newer request exists; it will deliver
    } catch (const std::bad_alloc&) {
        out.error =
            tr("Not enough memory to compute this scene; use fewer tokens or heads, or a "
               "smaller d_model.");
    } catch (const std::exception& e) {
        out.error = errorText(e, tr("the scene"));
    }
    out.ms = elapsedMs(start);
    return out;
}

attn::SceneResult ComputeService::continueFrom(const Base& base, const attn::SceneSpec& spec,
                                               attn::Progress* progress, attn::SceneResult* recycle,
                                               attn::Index queryStride) {
    const attn::SceneSpec prepared = inputs_.prepare(spec);
    const attn::Storage storage = storageFor(spec);
    // A model scene's run is the window's, kept: another layer or head runs nothing again.
    if (runs_ && prepared.is_model()) return runs_->scene(prepared, progress, storage);
    // Core's rule says what the change from the shown scene invalidates; recompute_scene
    // redoes only that (bit-identical to starting over) or everything. A streamed scene's
    // preview too: it computed the embeddings, weights and projections afresh each time (a
    // third of a 4096-token preview).
    const bool partial =
        base.result && attn::restart_from(base.spec, spec) != attn::SceneRestart::Full;
    // No view reads a whole output matrix: the math panel derives its query's (output_row).
    constexpr bool outputs = false;
    return partial
               ? attn::recompute_scene(*base.result, inputs_.prepare(base.spec), prepared, progress,
                                       storage, recycle, attn::kOverviewCells, queryStride, outputs)
               : attn::compute_scene(prepared, progress, storage, recycle, attn::kOverviewCells,
                                     queryStride, outputs);
}

void ComputeService::settle(quint64 id, Outcome outcome) {
    if (outcome.result)
        deliver(id, std::move(outcome.result), std::move(outcome.spec), outcome.ms);
    else
        fail(id, outcome.error);
}

void ComputeService::deliver(quint64 id, SceneResultPtr result, attn::SceneSpec spec, double ms) {
    if (id <= delivered_) return;  // older than what is shown: never drawn over it
    delivered_ = id;
    result_ = result;
    resultSpec_ = std::move(spec);
    lastMs_ = ms;
    Q_EMIT resultReady(std::move(result), id, ms);
    if (wasBusy_ && !busy()) {
        wasBusy_ = false;
        Q_EMIT busyChanged(false);
    }
}

void ComputeService::deliverPreview(quint64 id, SceneResultPtr preview, double ms) {
    // Only while it is the newest request and its exact result has not arrived.
    if (id <= delivered_ || id < requested_.load()) return;
    ++previews_;
    Q_EMIT resultReady(std::move(preview), id, ms);
}

void ComputeService::fail(quint64 id, const QString& message) {
    if (id <= delivered_) return;
    // A failed request still counts as the newest answer: an older result must not replace it.
    delivered_ = id;
    Q_EMIT failed(message, id);
    if (wasBusy_ && !busy()) {
        wasBusy_ = false;
        Q_EMIT busyChanged(false);
    }
}
