// Tests of ComputeService: results match core; the newest request wins when requests overlap.
#include <QSignalSpy>
#include <QTest>

#include "app_test_support.hpp"
#include "model/compute_service.hpp"

namespace {

attn::SceneSpec longScene(int words, float temperature) {
    attn::SceneSpec s;
    std::string text;
    for (int i = 0; i < words; ++i) {
        (text += "w") += std::to_string(i % 97);
        text += ' ';
    }
    s.text = text;
    s.d_model = 128;
    s.heads = 8;
    s.temperature = temperature;
    return s;
}

}  // namespace

class ComputeServiceTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void deliversCoreResult() {
        ComputeService service;
        QSignalSpy spy(&service, &ComputeService::resultReady);
        const quint64 id = service.request(attn::SceneSpec{});
        test_support::settle(&service);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(service.lastDelivered(), id);
        const attn::SceneResult expected = attn::compute_scene(attn::SceneSpec{});
        QCOMPARE(service.result()->heads.size(), expected.heads.size());
        QVERIFY(service.result()->heads[2].weights.isApprox(expected.heads[2].weights, 0));
    }

    void newestWinsWhenRequestsOverlap() {
        ComputeService service;
        service.setSyncThreshold(0);  // everything goes to the worker thread
        std::vector<quint64> delivered;
        connect(&service, &ComputeService::resultReady, this,
                [&](SceneResultPtr, quint64 id, double) { delivered.push_back(id); });
        quint64 last = 0;
        for (int i = 0; i < 40; ++i)
            last = service.request(longScene(200 + i, 0.5f + 0.05f * i));
        test_support::settle(&service);
        QVERIFY(!delivered.empty());
        QCOMPARE(delivered.back(), last);
        for (std::size_t i = 1; i < delivered.size(); ++i)
            QVERIFY(delivered[i] > delivered[i - 1]);
        // The shown result is the newest request's, exactly.
        const attn::SceneResult expected = attn::compute_scene(longScene(239, 0.5f + 0.05f * 39));
        QCOMPARE(service.result()->q_tokens.size(), expected.q_tokens.size());
        QVERIFY(service.result()->heads[5].weights.isApprox(expected.heads[5].weights, 0));
    }

    void olderAsyncResultNeverReplacesNewerSyncResult() {
        ComputeService service;
        service.setSyncThreshold(ComputeService::estimateWork(attn::SceneSpec{}) * 2);
        std::vector<quint64> delivered;
        connect(&service, &ComputeService::resultReady, this,
                [&](SceneResultPtr, quint64 id, double) { delivered.push_back(id); });
        const quint64 slow = service.request(longScene(1500, 1.f));  // worker thread
        const quint64 fast = service.request(attn::SceneSpec{});     // at once, newer
        QVERIFY(fast > slow);
        QCOMPARE(service.lastDelivered(), fast);
        service.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(service.lastDelivered(), fast);
        QCOMPARE(delivered, std::vector<quint64>{fast});
        QCOMPARE(service.result()->q_tokens.size(), std::size_t(13));
    }

    void longSequencesKeepWeightsOnly() {
        // 1100² cells × 8 heads is above the limit: weights only, and the same weights.
        const attn::SceneSpec spec = longScene(1100, 0.8f);
        QVERIFY(!ComputeService::keepsStages(spec));
        QVERIFY(ComputeService::keepsStages(longScene(300, 0.8f)));
        ComputeService service;
        service.request(spec);
        test_support::settle(&service);
        const SceneResultPtr r = service.result();
        QVERIFY(r && r->storage != attn::Storage::Stages);
        QCOMPARE(r->heads[3].raw.size(), attn::Index(0));
        const attn::SceneResult full = attn::compute_scene(spec);
        QVERIFY(r->heads[3].weights.isApprox(full.heads[3].weights, 1e-5f));
        QVERIFY(std::abs(r->stats[3].entropy - full.stats[3].entropy) < 1e-4);
        QCOMPARE(r->raw_row(3, 700).size(), full.heads[3].raw.cols());
        QVERIFY(r->raw_row(3, 700).isApprox(Eigen::RowVectorXf(full.heads[3].raw.row(700)), 1e-5f));
    }

    void releasedResultsLendTheirBuffers() {
        ComputeService service;
        service.setSyncThreshold(0);
        const quint64 before = service.reusedBuffers();
        service.request(longScene(400, 1.0f));
        test_support::settle(&service);
        // The service keeps the shown result until the next one is delivered, so the second
        // computation finds nothing released yet; its delivery releases the first.
        service.request(longScene(400, 1.1f));
        test_support::settle(&service);
        QCOMPARE(service.reusedBuffers(), before);
        service.request(longScene(400, 0.7f));
        test_support::settle(&service);
        QCOMPARE(service.reusedBuffers(), before + 1);
        // The reused buffers hold the new numbers, not the old ones.
        const attn::SceneResult expected = attn::compute_scene(longScene(400, 0.7f));
        QVERIFY(service.result()->heads[1].weights.isApprox(expected.heads[1].weights, 0));
    }

    void failureIsReportedAndCounts() {
        ComputeService service;
        QSignalSpy failed(&service, &ComputeService::failed);
        attn::SceneSpec empty;
        empty.text = "   ";
        service.request(empty);
        test_support::settle(&service);
        QCOMPARE(failed.count(), 1);
        QVERIFY(!failed.first().at(0).toString().isEmpty());
        QVERIFY(!service.busy());
    }
};

QTEST_GUILESS_MAIN(ComputeServiceTest)
#include "compute_service_test.moc"
