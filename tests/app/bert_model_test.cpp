// QtTest: a BERT model in the window, driven with real events. A tiny random BertForMaskedLM
// (written by tests/core/bert_tiny.py) opens from Model ▸ (the Hugging Face cache list, with
// its family and size), a sentence with [MASK] is typed, and the drawn weights match core's
// and attend both ways; the Model dock names the family and fills the mask with core's top 10.
// A BertModel folder (no head) says it has no predictions.
// The Llama-family half of issue 24's test is llama_model_test.cpp.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScreen>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/scene/model_scene.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"
#include "views/next_tokens_view.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

class BertModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeBertModelTest"));
        QCOMPARE(test_support::writeCachedModel(hub_, test_support::Tiny::Bert,
                                                QStringLiteral("tiny/bert"), &model_),
                 QString());
    }

    void typeAMaskedSentenceAndSeeItFilled() {
        // Model ▸ lists the cache's BERT folder with its family and size; the entry opens it.
        MainWindow w;
        QString error;
        fileio::ModelController* models = test_support::openCachedModel(
            w, test_support::Tiny::Bert, QStringLiteral("tiny/bert"), &error);
        QVERIFY2(models, qPrintable(error));
        QVERIFY(w.scene()->spec().model);
        // Bidirectional: no mask of its own; no rotary control for absolute positions.
        QCOMPARE(w.scene()->spec().mask.kind, attn::MaskKind::None);
        QVERIFY(!w.controlsDock()->rotaryOffBox()->isVisible());
        const QString about = models->dock()->aboutText();
        QVERIFY2(about.contains(QStringLiteral("BERT")) &&
                     about.contains(QStringLiteral("2 layers × 2 heads")) &&
                     about.contains(QStringLiteral("F32")) &&
                     about.contains(QStringLiteral("parameters")) &&
                     about.contains(QStringLiteral("bidirectional")),
                 qPrintable(about));

        // Typing a sentence with [MASK] runs the model once the typing pauses.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("The cat [MASK] on the mat.")),
                 QString());
        QCOMPARE(w.result()->q_tokens,
                 (std::vector<std::string>{"[CLS]", "the", "cat", "[MASK]", "on", "the", "mat", ".",
                                           "[SEP]"}));
        QCOMPARE(w.heatmapGrid()->headCount(), 2);
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        // Both directions: the first query attends to the last key.
        for (const attn::HeadResult& h : w.result()->heads)
            QVERIFY(h.weights(0, 8) > 1e-6f);

        // The dock fills the first [MASK] (position 4, from 1) with core's top 10.
        QCOMPARE(w.result()->run->logits_position, attn::Index(3));
        QVERIFY2(
            models->dock()->predictionTitle().startsWith(QStringLiteral("Fill-mask at position 4")),
            qPrintable(models->dock()->predictionTitle()));
        const attn::SceneResult core = attn::compute_scene(w.scene()->spec());
        const std::vector<attn::NextToken>& shown = models->dock()->nextTokens()->tokens();
        QCOMPARE(shown.size(), std::size_t(10));
        for (std::size_t i = 0; i < shown.size(); ++i) {
            QCOMPARE(shown[i].id, core.next_tokens[i].id);
            QCOMPARE(shown[i].probability, core.next_tokens[i].probability);
        }

        // Without [MASK]: the dock says where it predicts instead.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the dog ran")), QString());
        QVERIFY2(models->dock()->predictionTitle().startsWith(QStringLiteral("No [MASK]")),
                 qPrintable(models->dock()->predictionTitle()));

        if (!qEnvironmentVariableIsEmpty("ATTN_SCREENSHOT_DIR")) {
            QCOMPARE(
                test_support::typeSentence(w, QStringLiteral("The capital of france is [MASK].")),
                QString());
            w.resize(w.screen()->availableGeometry().size());
            test_support::settleAll(w.computeService());
            const QImage shot = w.grab().toImage();
            test_support::saveScreenshot(
                shot,
                QStringLiteral("bert-fill-mask-%1x%2.png").arg(shot.width()).arg(shot.height()));
        }
    }

    void aFolderWithoutTheHeadSaysSo() {
        QTemporaryDir bare;
        QVERIFY2(test_support::writeTinyBert(bare.path(), {QStringLiteral("--no-head")}).isEmpty(),
                 "BertModel");
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(bare.path()), qPrintable(models->lastError()));
        test_support::settle(w.computeService());
        QVERIFY(w.result() && w.result()->run);
        QCOMPARE(w.result()->run->logits.size(), attn::Index(0));
        QVERIFY(models->dock()->nextTokens()->tokens().empty());
        QVERIFY2(models->dock()->predictionTitle().contains(QStringLiteral("no masked-LM head")),
                 qPrintable(models->dock()->predictionTitle()));
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
    }

  private:
    QTemporaryDir hub_;
    QString model_;
};

QTEST_MAIN(BertModelTest)
#include "bert_model_test.moc"
