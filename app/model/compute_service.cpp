// AttnScope — computes scenes off the GUI thread; the newest request wins. GPL-3.0-or-later.
#include "model/compute_service.hpp"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <chrono>
#include <utility>

#include "attn/error.hpp"

namespace {

/// Cancels a computation as soon as a newer request exists: its result would be dropped anyway.
class SupersededProgress : public attn::Progress {
  public:
    SupersededProgress(const std::atomic<quint64>& latest, quint64 id) : latest_(latest), id_(id) {}
    void update(double) override {}
    bool cancelled() const override { return latest_.load() > id_; }

  private:
    const std::atomic<quint64>& latest_;
    quint64 id_;
};

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

ComputeService::ComputeService(QObject* parent) : QObject(parent) {
    worker_ = std::thread(&ComputeService::workerLoop, this);
}

ComputeService::~ComputeService() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        pending_.reset();
    }
    requested_.fetch_add(1);  // cancels the running computation at its next progress report
    wake_.notify_all();
    worker_.join();
}

double ComputeService::estimateWork(const attn::SceneSpec& spec) {
    if (spec.data) {
        double cells = 0;
        for (const auto& c : spec.data->components)
            cells += double(c.q_tokens.size()) * double(c.k_tokens.size()) * double(c.heads);
        return cells * 20;  // softmax + statistics per cell
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
    if (spec.data) return true;  // loaded data: the stages are the file's own numbers
    double n = 0;
    try {
        n = double(spec.query_tokens().size());
    } catch (const std::exception&) {
        return true;
    }
    const double nk = spec.cross_text.empty() ? n : double(attn::tokenize(spec.cross_text).size());
    return n * nk * double(spec.heads) <= kStageCellLimit;
}

quint64 ComputeService::request(const attn::SceneSpec& spec) {
    const quint64 id = requested_.fetch_add(1) + 1;
    if (!wasBusy_) {
        wasBusy_ = true;
        Q_EMIT busyChanged(true);
    }
    if (estimateWork(spec) < syncThreshold_) {
        {
            // Anything queued is older than this request: drop it.
            std::lock_guard lock(mutex_);
            pending_.reset();
        }
        run(Job{spec, id});
        return id;
    }
    {
        std::lock_guard lock(mutex_);
        pending_ = Job{spec, id};
    }
    wake_.notify_one();
    return id;
}

void ComputeService::workerLoop() {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            job = std::move(*pending_);
            pending_.reset();
            running_ = true;
        }
        if (job.id >= requested_.load()) run(job);  // else superseded while queued
        {
            std::lock_guard lock(mutex_);
            running_ = false;
        }
        idle_.notify_all();
    }
}

void ComputeService::waitForIdle() {
    {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [this] { return !running_ && !pending_.has_value(); });
    }
    // Deliveries were posted to this thread's event queue.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void ComputeService::run(const Job& job) {
    const bool onWorker = std::this_thread::get_id() == worker_.get_id();
    const auto start = std::chrono::steady_clock::now();
    SceneResultPtr result;
    QString error;
    // Reusing the buffers of a result no view shows any more saves page-faulting the n² weights
    // in afresh (a third of the time for long sequences).
    std::unique_ptr<attn::SceneResult> old = recycler_->take();
    if (old) ++reused_;
    try {
        SupersededProgress progress(requested_, job.id);
        auto* fresh = new attn::SceneResult(attn::compute_scene(
            inputs_.prepare(job.spec), &progress, keepsStages(job.spec), old.get()));
        result = SceneResultPtr(fresh, [bin = recycler_](const attn::SceneResult* r) {
            bin->put(const_cast<attn::SceneResult*>(r));
        });
    } catch (const attn::Cancelled&) {
        if (old) recycler_->put(old.release());  // compute_scene handed its buffers back
        return;                                  // a newer request exists; it will deliver
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    const double ms = elapsedMs(start);
    if (!onWorker) {
        if (result)
            deliver(job.id, std::move(result), ms);
        else
            fail(job.id, error);
        return;
    }
    // Hand over to the GUI thread; `this` outlives the worker (joined in the destructor), and
    // queued calls to a destroyed object are discarded by Qt.
    QMetaObject::invokeMethod(
        this,
        [this, id = job.id, result = std::move(result), error, ms]() mutable {
            if (result)
                deliver(id, std::move(result), ms);
            else
                fail(id, error);
        },
        Qt::QueuedConnection);
}

void ComputeService::deliver(quint64 id, SceneResultPtr result, double ms) {
    if (id <= delivered_) return;  // older than what is shown: never drawn over it
    delivered_ = id;
    result_ = result;
    lastMs_ = ms;
    Q_EMIT resultReady(std::move(result), id, ms);
    if (wasBusy_ && !busy()) {
        wasBusy_ = false;
        Q_EMIT busyChanged(false);
    }
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
