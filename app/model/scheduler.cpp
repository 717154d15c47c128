// AttnScope — the one scheduler of background work. GPL-3.0-or-later.
#include "model/scheduler.hpp"

#include <QCoreApplication>
#include <QMetaObject>
#include <new>

#include "attn/util/error.hpp"
#include "model/error_text.hpp"
#include "model/unexpected_error.hpp"

Scheduler::Scheduler(int threads, QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(std::max(1, threads));
    // Idle workers linger briefly: a slider drag submits a job per frame.
    pool_.setExpiryTimeout(30000);
}

Scheduler::~Scheduler() {
    {
        std::lock_guard lock(mutex_);
        for (auto& [key, slot] : slots_) {
            if (slot.running) slot.running->cancel();
            if (slot.pending) slot.pending->state->cancel();
            slot.pending.reset();
        }
    }
    pool_.waitForDone();
}

Scheduler& Scheduler::instance() {
    static QPointer<Scheduler> shared;
    if (!shared) shared = new Scheduler(4, QCoreApplication::instance());
    return *shared;
}

JobHandle Scheduler::submit(QObject* owner, const QString& name, Work work, Failure failed) {
    auto state = std::make_shared<JobState>();
    if (owner && watched_.insert(owner).second) {
        connect(owner, &QObject::destroyed, this, [this, owner] { cancelOwner(owner); });
    }
    const Key key{owner, name};
    bool start = false;
    {
        std::lock_guard lock(mutex_);
        Slot& slot = slots_[key];
        if (slot.running) slot.running->cancel();
        if (slot.pending) {
            slot.pending->state->cancel();
            slot.pending->state->finished_ = true;  // never started: nothing to deliver
        }
        cancelQueued(key);
        start = !slot.running && !slot.pending;
        slot.pending = Job{state, std::move(work), std::move(failed), QPointer<QObject>(owner)};
    }
    // One drain per slot: a running drain picks the pending job up when its job ends.
    if (start) pool_.start([this, key] { drain(key); });
    return state;
}

void Scheduler::drain(const Key& key) {
    for (;;) {
        Job job;
        {
            std::lock_guard lock(mutex_);
            auto it = slots_.find(key);
            if (it == slots_.end() || !it->second.pending) {
                if (it != slots_.end()) slots_.erase(it);
                idle_.notify_all();
                return;
            }
            job = std::move(*it->second.pending);
            it->second.pending.reset();
            it->second.running = job.state;
        }
        execute(key, std::move(job));
        {
            std::lock_guard lock(mutex_);
            slots_[key].running.reset();
        }
    }
}

void Scheduler::execute(const Key& key, Job job) {
    Delivery delivery;
    bool failed = false;
    QString error;
    if (!job.state->cancelled()) {
        try {
            delivery = job.work(*job.state);
        } catch (const attn::Cancelled&) {
            // Superseded or cancelled: a newer job delivers, or nobody wants it.
        } catch (const std::bad_alloc&) {
            failed = true;
            error = tr("Not enough memory for this computation");
        } catch (const std::exception& e) {
            failed = true;
            error = errorText(e, key.name);
        } catch (...) {
            // Escaping a worker thread would end the process (std::terminate).
            failed = true;
            error = tr("%1: an unexpected error (please report it)").arg(key.name);
        }
    }
    {
        std::lock_guard lock(mutex_);
        queued_.emplace(key, job.state);
    }
    // The delivery runs on the GUI thread; `this` outlives every drain (the destructor waits).
    QMetaObject::invokeMethod(
        this,
        [this, key, job = std::move(job), delivery = std::move(delivery), failed, error]() mutable {
            {
                std::lock_guard lock(mutex_);
                const auto [first, last] = queued_.equal_range(key);
                for (auto it = first; it != last; ++it)
                    if (it->second == job.state) {
                        queued_.erase(it);
                        break;
                    }
            }
            finish(job, key.name, std::move(delivery), failed, error);
        },
        Qt::QueuedConnection);
}

void Scheduler::finish(const Job& job, const QString& name, Delivery delivery, bool failed,
                       const QString& error) {
    // Checked here, on the GUI thread where edits happen: a job superseded while its delivery
    // was queued is dropped as well, and a destroyed owner gets nothing.
    if (!job.state->cancelled() && job.owner) {
        // What the GUI thread does with a result may throw as well (a token the tokenizer
        // lacks, …): that is the job's failure, a message, never the end of the event loop.
        try {
            if (failed && job.failed)
                job.failed(error);
            else if (delivery)
                delivery();
        } catch (const attn::Cancelled&) {
            // A delivery that cancels itself (a newer edit came) is no failure.
        } catch (const std::exception& e) {
            UnexpectedErrors::instance().report(&e, tr("The result of “%1”").arg(name));
        } catch (...) {
            UnexpectedErrors::instance().report(nullptr, tr("The result of “%1”").arg(name));
        }
    }
    job.state->finished_ = true;
    Q_EMIT jobFinished(name);
}

void Scheduler::cancel(QObject* owner, const QString& name) {
    std::lock_guard lock(mutex_);
    const Key key{owner, name};
    cancelQueued(key);
    auto it = slots_.find(key);
    if (it == slots_.end()) return;
    if (it->second.running) it->second.running->cancel();
    if (it->second.pending) {
        it->second.pending->state->cancel();
        it->second.pending->state->finished_ = true;
        it->second.pending.reset();
    }
}

void Scheduler::cancelQueued(const Key& key) {
    const auto [first, last] = queued_.equal_range(key);
    for (auto it = first; it != last; ++it)
        it->second->cancel();
}

void Scheduler::cancelOwner(const QObject* owner) {
    watched_.erase(owner);
    std::lock_guard lock(mutex_);
    for (auto& [key, state] : queued_)
        if (key.owner == owner) state->cancel();
    for (auto& [key, slot] : slots_) {
        if (key.owner != owner) continue;
        if (slot.running) slot.running->cancel();
        if (slot.pending) {
            slot.pending->state->cancel();
            slot.pending->state->finished_ = true;
            slot.pending.reset();
        }
    }
}

void Scheduler::cancelAndWait(QObject* owner) {
    cancelOwner(owner);
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return idle(owner); });
}

bool Scheduler::idle(const QObject* owner) const {
    for (const auto& [key, slot] : slots_)
        if (!owner || key.owner == owner) return false;
    return true;
}

void Scheduler::waitForIdle(QObject* owner) {
    {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return idle(owner); });
    }
    // Deliveries were posted to this object's event queue.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

bool Scheduler::isActive(QObject* owner, const QString& name) const {
    std::lock_guard lock(mutex_);
    return slots_.count(Key{owner, name}) > 0;
}
