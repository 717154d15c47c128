// AttnScope — the one scheduler of background work: named, cancellable jobs with progress.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "attn/util/progress.hpp"

/// The state of one job, shared by the scheduler, the worker running it (as its attn::Progress)
/// and whoever holds its handle (a progress dialog polls it, Cancel cancels it).
class JobState : public attn::Progress {
  public:
    void update(double fraction) override { fraction_.store(fraction); }
    bool cancelled() const override { return cancelled_.load(); }
    /// Asks the job to stop: core throws attn::Cancelled at its next report; nothing is
    /// delivered.
    void cancel() { cancelled_.store(true); }
    /// Completed fraction in [0, 1] last reported by the work.
    double fraction() const { return fraction_.load(); }
    /// True once the job is over on the GUI thread (delivered, failed, cancelled or dropped).
    bool finished() const { return finished_.load(); }

  private:
    friend class Scheduler;
    std::atomic<double> fraction_{0.0};
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> finished_{false};
};
using JobHandle = std::shared_ptr<JobState>;

/// Runs every background computation of the application: scene compute, Model-tab layers,
/// lenses, numbers export and file loading. A job is named per owner (the object its result is
/// for); a newer job of the same owner and name cancels the older one, whose result is never
/// delivered. Jobs of one name run one after another (only the newest queued one runs); jobs of
/// different names run side by side on a small pool. The work runs on a worker thread and returns
/// the step that uses its result, which runs on the scheduler's (GUI) thread — and only while
/// the owner exists and the job was not superseded or cancelled.
class Scheduler : public QObject {
    Q_OBJECT
  public:
    /// The step of a job that runs on the GUI thread (draws or stores the result).
    using Delivery = std::function<void()>;
    /// The part of a job that runs on a worker; it reports to and checks its progress.
    using Work = std::function<Delivery(attn::Progress&)>;
    /// Called on the GUI thread with the message of an exception the work let through.
    using Failure = std::function<void(const QString&)>;

    explicit Scheduler(int threads = 4, QObject* parent = nullptr);
    ~Scheduler() override;

    /// The application's scheduler (owned by the QCoreApplication, created on first use).
    static Scheduler& instance();

    /// Queues work as job `name` of owner, superseding an older job of that name.
    JobHandle submit(QObject* owner, const QString& name, Work work, Failure failed = {});

    /// Typed convenience: compute(progress) runs on a worker, done(value) on the GUI thread.
    template <class Compute, class Done>
    JobHandle run(QObject* owner, const QString& name, Compute compute, Done done,
                  Failure failed = {}) {
        using T = std::invoke_result_t<Compute&, attn::Progress&>;
        return submit(
            owner, name,
            [compute = std::move(compute), done = std::move(done)](attn::Progress& p) mutable {
                if constexpr (std::is_void_v<T>) {
                    compute(p);
                    return Delivery([done]() mutable { done(); });
                } else {
                    auto value = std::make_shared<T>(compute(p));
                    return Delivery([done, value]() mutable { done(std::move(*value)); });
                }
            },
            std::move(failed));
    }

    /// Cancels job `name` of owner (queued or running); nothing of it is delivered.
    void cancel(QObject* owner, const QString& name);
    /// Cancels every job of owner and blocks until none of them runs (owners' destructors).
    void cancelAndWait(QObject* owner);
    /// Blocks until no job of owner (of anyone when null) is queued or running, then runs the
    /// deliveries they posted (tests, benchmarks and the command line; the GUI never blocks).
    void waitForIdle(QObject* owner = nullptr);
    /// True while job `name` of owner is queued or running.
    bool isActive(QObject* owner, const QString& name) const;

  Q_SIGNALS:
    /// A job ended on the GUI thread (delivered, failed or dropped).
    void jobFinished(const QString& name);

  private:
    struct Key {
        const QObject* owner;
        QString name;
        bool operator<(const Key& o) const {
            return owner != o.owner ? std::less<const QObject*>()(owner, o.owner) : name < o.name;
        }
    };
    struct Job {
        JobHandle state;
        Work work;
        Failure failed;
        QPointer<QObject> owner;
    };
    struct Slot {
        std::optional<Job> pending;  ///< newest job not yet started (older ones were dropped)
        JobHandle running;           ///< the job a worker is running
    };
    void drain(const Key& key);
    void execute(const Key& key, Job job);
    void finish(const Job& job, const QString& name, Delivery delivery, bool failed,
                const QString& error);
    bool idle(const QObject* owner) const;
    void cancelOwner(const QObject* owner);
    void cancelQueued(const Key& key);

    mutable std::mutex mutex_;
    std::condition_variable idle_;
    std::map<Key, Slot> slots_;
    /// Jobs whose work is over and whose delivery waits in the GUI queue: a cancel or a newer
    /// job must still reach them (the slot no longer holds them).
    std::multimap<Key, JobHandle> queued_;
    std::set<const QObject*> watched_;  ///< owners whose destruction cancels their jobs
    QThreadPool pool_;
};
