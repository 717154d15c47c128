// Tests of the Scheduler: named jobs, supersession, cancellation, progress, owners' lifetime.
#include <QTest>
#include <atomic>
#include <thread>

#include "attn/util/error.hpp"
#include "model/scheduler.hpp"

namespace {

/// Work that runs until cancelled (or `limit` steps), reporting progress as it goes.
int spin(attn::Progress& p, std::atomic<int>& steps, int limit = 1 << 30) {
    for (int i = 0; i < limit; ++i) {
        ++steps;
        attn::report(&p, double(i % 100) / 100.0);
        std::this_thread::yield();  // long work is cut short by cancellation, not by a clock
    }
    return limit;
}

}  // namespace

class SchedulerTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void deliversOnTheGuiThreadFromAWorker() {
        Scheduler scheduler(2);
        QObject owner;
        const auto gui = std::this_thread::get_id();
        std::thread::id worker;
        int got = 0;
        scheduler.run(
            &owner, QStringLiteral("sum"),
            [&worker](attn::Progress&) {
                worker = std::this_thread::get_id();
                return 6 * 7;
            },
            [&](int v) {
                QCOMPARE(std::this_thread::get_id(), gui);
                got = v;
            });
        scheduler.waitForIdle(&owner);
        QCOMPARE(got, 42);
        QVERIFY(worker != gui);
    }

    void newerJobOfTheSameNameSupersedesTheOlder() {
        Scheduler scheduler(2);
        QObject owner;
        std::atomic<int> steps{0};
        std::vector<int> delivered;
        const JobHandle first = scheduler.run(
            &owner, QStringLiteral("job"), [&](attn::Progress& p) { return spin(p, steps); },
            [&](int v) { delivered.push_back(v); });
        QTRY_VERIFY(steps.load() > 0);  // the first one is running
        // A second one is queued behind it, a third replaces the second before it starts.
        const JobHandle second = scheduler.run(
            &owner, QStringLiteral("job"), [&](attn::Progress& p) { return spin(p, steps, 3); },
            [&](int v) { delivered.push_back(v); });
        const JobHandle third = scheduler.run(
            &owner, QStringLiteral("job"), [](attn::Progress&) { return 33; },
            [&](int v) { delivered.push_back(v); });
        scheduler.waitForIdle(&owner);
        QCOMPARE(delivered, std::vector<int>{33});  // only the newest is delivered
        QVERIFY(first->cancelled() && first->finished());
        QVERIFY(second->cancelled() && second->finished());
        QVERIFY(!third->cancelled() && third->finished());
        // Another name (or owner) is another job: both deliver.
        QObject other;
        int a = 0, b = 0;
        scheduler.run(
            &owner, QStringLiteral("a"), [](attn::Progress&) { return 1; }, [&](int v) { a = v; });
        scheduler.run(
            &other, QStringLiteral("job"), [](attn::Progress&) { return 2; },
            [&](int v) { b = v; });
        scheduler.waitForIdle();
        QCOMPARE(a, 1);
        QCOMPARE(b, 2);
    }

    void cancelStopsTheWorkAndDeliversNothing() {
        Scheduler scheduler(1);
        QObject owner;
        std::atomic<int> steps{0};
        bool delivered = false;
        const JobHandle job = scheduler.run(
            &owner, QStringLiteral("long"), [&](attn::Progress& p) { return spin(p, steps); },
            [&](int) { delivered = true; });
        QTRY_VERIFY(job->fraction() > 0.0);  // progress is reported while it runs
        QVERIFY(scheduler.isActive(&owner, QStringLiteral("long")));
        scheduler.cancel(&owner, QStringLiteral("long"));
        scheduler.waitForIdle(&owner);
        QVERIFY(!delivered);
        QVERIFY(job->finished());
        QVERIFY(!scheduler.isActive(&owner, QStringLiteral("long")));
    }

    /// The work is over but its delivery still waits in the GUI queue: a cancel or a newer
    /// job still drops it (the user pressed Cancel; the window must not change afterwards).
    void aQueuedDeliveryIsDroppedByCancelAndBySupersession() {
        Scheduler scheduler(1);
        QObject owner;
        int delivered = 0;
        const auto quick = [](attn::Progress&) { return 1; };
        const JobHandle first =
            scheduler.run(&owner, QStringLiteral("q"), quick, [&](int) { ++delivered; });
        // No event loop runs while the worker ends: the delivery is queued, not yet run.
        while (scheduler.isActive(&owner, QStringLiteral("q")))
            std::this_thread::yield();
        QVERIFY(!first->finished());
        scheduler.cancel(&owner, QStringLiteral("q"));
        QVERIFY(first->cancelled());
        QCoreApplication::sendPostedEvents(&scheduler, QEvent::MetaCall);
        QCOMPARE(delivered, 0);
        QVERIFY(first->finished());

        std::vector<int> got;
        const JobHandle older = scheduler.run(
            &owner, QStringLiteral("q"), [](attn::Progress&) { return 1; },
            [&](int v) { got.push_back(v); });
        while (scheduler.isActive(&owner, QStringLiteral("q")))
            std::this_thread::yield();
        scheduler.run(
            &owner, QStringLiteral("q"), [](attn::Progress&) { return 2; },
            [&](int v) { got.push_back(v); });
        scheduler.waitForIdle(&owner);
        QVERIFY(older->cancelled());
        QCOMPARE(got, std::vector<int>{2});
    }

    void failuresReachTheFailureCallback() {
        Scheduler scheduler(1);
        QObject owner;
        QString error;
        scheduler.run(
            &owner, QStringLiteral("bad"),
            [](attn::Progress&) -> int { throw attn::FormatError("x.npy: broken header"); },
            [](int) { QFAIL("a failed job delivers nothing"); },
            [&](const QString& message) { error = message; });
        scheduler.waitForIdle();
        QCOMPARE(error, QStringLiteral("x.npy: broken header"));
    }

    void aDestroyedOwnerGetsNothingAndItsJobsStop() {
        Scheduler scheduler(1);
        std::atomic<int> steps{0};
        bool delivered = false;
        JobHandle job;
        {
            QObject owner;
            job = scheduler.run(
                &owner, QStringLiteral("long"), [&](attn::Progress& p) { return spin(p, steps); },
                [&](int) { delivered = true; });
            QTRY_VERIFY(steps.load() > 0);
        }
        QVERIFY(job->cancelled());
        scheduler.waitForIdle();
        QVERIFY(!delivered);
    }

    void cancelAndWaitReturnsOnlyWhenTheWorkIsOver() {
        Scheduler scheduler(1);
        QObject owner;
        std::atomic<int> steps{0};
        std::atomic<bool> running{false};
        scheduler.submit(&owner, QStringLiteral("long"), [&](attn::Progress& p) {
            running = true;
            try {
                spin(p, steps);
            } catch (...) {
                running = false;
                throw;
            }
            return Scheduler::Delivery();
        });
        QTRY_VERIFY(running.load());
        scheduler.cancelAndWait(&owner);
        QVERIFY(!running.load());
    }
};

QTEST_MAIN(SchedulerTest)
#include "scheduler_test.moc"
