// QtTest: BertViz files open as BertViz shows them; the window says which file is looked at,
// and sessions travel with their data (relative paths, embedding, display and lens settings).
// GPL-3.0-or-later.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "views/math_panel.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

QString fixture(const char* name) {
    return QStringLiteral(ATTN_FIXTURES_DIR "/") + QString::fromLatin1(name);
}

void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

/// A BERT sentence-pair payload in BertViz's filter-keyed form: "A1 A2" + "B1".
QByteArray sentencePair() {
    return R"({"attention": {
      "aa": {"attn": [[[[0.5, 0.25], [0.2, 0.3]]]], "left_text": ["A1", "A2"],
             "right_text": ["A1", "A2"]},
      "ab": {"attn": [[[[0.25], [0.5]]]], "left_text": ["A1", "A2"], "right_text": ["B1"]},
      "all": {"attn": [[[[0.5, 0.25, 0.25], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]]],
              "left_text": ["A1", "A2", "B1"], "right_text": ["A1", "A2", "B1"]},
      "ba": {"attn": [[[[0.1, 0.1]]]], "left_text": ["B1"], "right_text": ["A1", "A2"]},
      "bb": {"attn": [[[[0.8]]]], "left_text": ["B1"], "right_text": ["B1"]}},
      "default_filter": "all"})";
}

/// XLNet-like: a whitespace token between words (CircuitsVis form).
QByteArray xlnetLike() {
    return R"({"attention": [[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]],
               "tokens": ["▁Hello", " ", "<sep>"]})";
}

}  // namespace

class DocumentTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeDocumentTest"));
    }

    void sentencePairOpensOnAllWithNamedComponents() {
        QTemporaryDir dir;
        const QString pair = dir.filePath(QStringLiteral("pair.json"));
        write(pair, sentencePair());
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        fileio::DataDock dock(w.scene(), w.controlsDock());
        QVERIFY(files.openFile(pair));
        const attn::SceneSpec& s = w.scene()->spec();
        QCOMPARE(s.data->components[std::size_t(s.component)].name, std::string("all"));
        QStringList items;
        for (int i = 0; i < dock.componentBox()->count(); ++i)
            items << dock.componentBox()->itemText(i);
        QCOMPARE(items,
                 (QStringList{QStringLiteral("All tokens"), QStringLiteral("Sentence A → A"),
                              QStringLiteral("Sentence A → B"), QStringLiteral("Sentence B → A"),
                              QStringLiteral("Sentence B → B")}));
        auto* note = dock.findChildren<QLabel*>().last();
        QVERIFY(!note->text().contains(QStringLiteral("sum to 1")));
        dock.componentBox()->setCurrentIndex(2);  // A → B
        QCOMPARE(w.scene()->spec().component, attn::Index(2));
        QVERIFY2(note->text().contains(QStringLiteral("Rows do not sum to 1")),
                 qPrintable(note->text()));
        test_support::settle(w.computeService());
        w.scene()->setSelection(Selection{0, 0, 0});
        QVERIFY2(w.mathPanel()->toPlainText().contains(QStringLiteral("below 1 here")),
                 qPrintable(w.mathPanel()->toPlainText()));
    }

    void whitespaceTokensAreVisible() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("xlnet.json"));
        write(path, xlnetLike());
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        QVERIFY(files.openFile(path));
        test_support::settle(w.computeService());
        HeadHeatmap* head = w.heatmapGrid()->head(0);
        head->refresh();
        const auto ticks = head->xAxis->ticker().dynamicCast<QCPAxisTickerText>()->ticks();
        QVERIFY2(ticks.value(1) == QStringLiteral("␣"), qPrintable(ticks.value(1)));
        QVERIFY(w.tokenEditor()->editor()->toPlainText().contains(QStringLiteral("␣")));
    }

    void titleNamesTheFileLookedAt() {
        QTemporaryDir dir;
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("untitled")));
        // A session, then data opened from within it.
        const QString session = dir.filePath(QStringLiteral("mine.attnscope"));
        QString error;
        QVERIFY2(files.saveTo(session, &error), qPrintable(error));
        QVERIFY(files.openFile(session));
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("mine.attnscope")));
        QFile f(session);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray sessionBytes = f.readAll();
        f.close();
        QVERIFY(files.openFile(fixture("gpt2_small_ex0.npz")));
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("gpt2_small_ex0.npz")),
                 qPrintable(w.windowTitle()));
        QVERIFY(files.currentFile().isEmpty());  // Ctrl+S asks where: the session is not it
        QVERIFY(!w.isWindowModified());
        attn::SceneSpec s = w.scene()->spec();
        s.temperature = 2;
        w.scene()->setSpec(s, QStringLiteral("tau"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), sessionBytes);
        f.close();
        // The sentence box is visibly read-only while the file's attention is shown.
        QPlainTextEdit* edit = w.tokenEditor()->editor();
        QVERIFY(edit->isReadOnly());
        QVERIFY(edit->palette().color(QPalette::Base) != QPalette().color(QPalette::Base));
        // Close Data: back to the synthetic scene, editable again.
        QAction* closeData = w.findChild<QAction*>(QStringLiteral("actionCloseData"));
        QVERIFY(closeData && closeData->isEnabled());
        closeData->trigger();
        QVERIFY(!w.scene()->spec().data);
        QVERIFY(!edit->isReadOnly());
        QCOMPARE(edit->palette().color(QPalette::Base), QPalette().color(QPalette::Base));
        QVERIFY(!closeData->isEnabled());
        // File ▸ New: the default scene, untitled.
        w.scene()->undoStack()->setClean();
        w.findChild<QAction*>(QStringLiteral("actionNew"))->trigger();
        QVERIFY(w.scene()->spec() == attn::SceneSpec{});
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("untitled")),
                 qPrintable(w.windowTitle()));
        QCOMPARE(w.scene()->undoStack()->count(), 0);
    }

    void fileFromTheCommandLineIsTheTitle() {
        MainWindow w;
        fileio::attachDataIo(&w, {fixture("bertviz_distilbert_headview.json")});
        QTRY_VERIFY(w.scene()->spec().data);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("bertviz_distilbert_headview.json")),
                 qPrintable(w.windowTitle()));
    }

    // Issue 26 item 11: the GUI's command-line argument says the plain fact, as the CLI does.
    void badCommandLineFileSaysThePlainFact() {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("folder.json"));
        const QString empty = dir.filePath(QStringLiteral("empty.json"));
        QVERIFY(QDir().mkpath(folder));
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        for (const auto& [path, fact] : {std::pair{folder, QStringLiteral("is a directory")},
                                         std::pair{empty, QStringLiteral("file is empty")}}) {
            MainWindow w;
            fileio::FileController* files = fileio::attachDataIo(&w, {path});
            files->setQuiet(true);  // the message box's text is lastError
            QTRY_VERIFY(!files->lastError().isEmpty());
            QVERIFY2(files->lastError().contains(fact), qPrintable(files->lastError()));
            QVERIFY2(files->lastError().contains(QFileInfo(path).fileName()),
                     qPrintable(files->lastError()));
            QVERIFY(w.scene()->spec().is_synthetic());
        }
    }

    void sessionMovedWithItsDataOpensTheSame() {
        QTemporaryDir first, second;
        QVERIFY(QDir(first.path()).mkpath(QStringLiteral("data")));
        QVERIFY(QDir(first.path()).mkpath(QStringLiteral("sessions")));
        const QString data = first.filePath(QStringLiteral("data/gpt2.npz"));
        QVERIFY(QFile::copy(fixture("gpt2_small_ex0.npz"), data));
        const QString session = first.filePath(QStringLiteral("sessions/s.attnscope"));
        attn::SceneSpec saved;
        std::vector<float> weights;
        {
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            QVERIFY(files.openFile(data));
            attn::SceneSpec s = w.scene()->spec();
            s.layer = 3;
            s.temperature = 0.5f;
            w.scene()->setSpec(s, QStringLiteral("edit"));
            // Display and lens settings travel too.
            w.controlsDock()->logScaleBox()->setChecked(true);
            w.controlsDock()->colorMapBox()->setCurrentIndex(
                w.controlsDock()->colorMapBox()->findData(int(ColorMapKind::Cividis)));
            w.controlsDock()->sharedRangeBox()->setChecked(false);
            auto* scaling = w.findChild<LensPanel*>(QStringLiteral("lens_scaling"));
            auto* slider = scaling->findChildren<QSlider*>().first();
            slider->setValue(slider->minimum() + 1);
            auto* align = w.findChild<LensPanel*>(QStringLiteral("lens_alignment"));
            align->findChild<QLineEdit*>(QStringLiteral("alignmentTarget"))
                ->setText(QStringLiteral("une phrase"));
            QString error;
            QVERIFY2(files.saveTo(session, &error), qPrintable(error));
            saved = w.scene()->spec();
        }
        QFile f(session);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY2(text.contains("\"path\": \"../data/gpt2.npz\""), text.constData());
        QVERIFY(text.contains("\"colormap\": \"cividis\""));
        // Both moved to another folder; the first one is gone.
        QVERIFY(QDir(second.path()).mkpath(QStringLiteral("data")));
        QVERIFY(QDir(second.path()).mkpath(QStringLiteral("sessions")));
        QVERIFY(QFile::copy(data, second.filePath(QStringLiteral("data/gpt2.npz"))));
        QVERIFY(QFile::copy(session, second.filePath(QStringLiteral("sessions/s.attnscope"))));
        QVERIFY(first.remove());
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        QVERIFY2(files.openFile(second.filePath(QStringLiteral("sessions/s.attnscope"))),
                 qPrintable(files.lastError()));
        const attn::SceneSpec& s = w.scene()->spec();
        QVERIFY(s.data);
        QCOMPARE(s.layer, attn::Index(3));
        QCOMPARE(s.temperature, 0.5f);
        QVERIFY(QString::fromStdString(s.data->source).startsWith(second.path()));
        test_support::settle(w.computeService());
        const attn::SceneResult expected = attn::compute_scene(s);
        QCOMPARE(w.result()->heads[2].weights, expected.heads[2].weights);
        const HeatmapStyle style = w.heatmapGrid()->style();
        QVERIFY(style.logScale);
        QVERIFY(!style.sharedRange);
        QCOMPARE(style.colorMap, ColorMapKind::Cividis);
        QVERIFY(w.controlsDock()->logScaleBox()->isChecked());
        auto* scaling = w.findChild<LensPanel*>(QStringLiteral("lens_scaling"));
        auto* slider = scaling->findChildren<QSlider*>().first();
        QCOMPARE(slider->value(), slider->minimum() + 1);
        auto* align = w.findChild<LensPanel*>(QStringLiteral("lens_alignment"));
        QCOMPARE(align->findChild<QLineEdit*>(QStringLiteral("alignmentTarget"))->text(),
                 QStringLiteral("une phrase"));
    }

    void embeddedSessionNeedsNoDataFile() {
        QTemporaryDir dir, elsewhere;
        const QString data = dir.filePath(QStringLiteral("pair.json"));
        write(data, sentencePair());
        const QString session = dir.filePath(QStringLiteral("embedded.attnscope"));
        {
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            QVERIFY(files.openFile(data));
            files.setEmbedData(true);
            QString error;
            QVERIFY2(files.saveTo(session, &error), qPrintable(error));
            files.setEmbedData(false);
        }
        const QString moved = elsewhere.filePath(QStringLiteral("embedded.attnscope"));
        QVERIFY(QFile::copy(session, moved));
        QVERIFY(dir.remove());  // the data file is gone
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY2(files.openFile(moved), qPrintable(files.lastError()));
        QCOMPARE(w.scene()->spec().data->components.size(), std::size_t(5));
        QCOMPARE(w.scene()->spec().data->components[0].mats[0](1, 2), 0.5f);
    }
};

QTEST_MAIN(DocumentTest)
#include "document_test.moc"
