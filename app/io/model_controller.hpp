// AttnScope — Model ▸ Open Model…, the GPT-2 models of the Hugging Face cache, Close Model.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "attn/scene/scene.hpp"
#include "model/seq2seq_run.hpp"

class MainWindow;
class QAction;
class QMenu;

namespace fileio {

class ModelDock;
class Seq2SeqDock;

/// Opens GPT-2 folders as the scene's model. Opening is all-or-nothing: the folder is read and
/// checked as the scheduler's job "load model" (the window stays live), and only a good one
/// changes the scene (one undo step); a bad one explains itself naming the file or tensor and
/// leaves the scene untouched.
class ModelController : public QObject {
    Q_OBJECT
  public:
    explicit ModelController(MainWindow* window);

    /// Opens the model folder dir (any family that runs) after the unsaved-changes question
    /// (setConfirmReplace); false when cancelled or (with a message box unless quiet) when it
    /// cannot.
    bool openModel(const QString& dir);
    /// Model ▸ Open Model…: a file dialog (a folder's config.json or a .gguf file), then
    /// openModel.
    void openWithDialog();
    /// Model ▸ Close Model: back to the synthetic scene on the same sentence (undoable).
    void closeModel();
    /// A model folder of the Hugging Face cache as Model ▸ lists it.
    struct CachedModel {
        QString dir;    ///< the folder, or an Ollama model's GGUF blob
        QString label;  ///< "name — family · size"
        bool ollama = false;
    };
    /// The folders of the Hugging Face cache of every family that runs, then the models of Ollama
    /// whose architecture runs, as Model ▸ lists them (reads the disk: a worker's call, never the
    /// GUI thread's).
    static QList<CachedModel> cachedModels();

  Q_SIGNALS:
    /// A look through the Hugging Face cache ended and Model ▸ lists what it found.
    void cacheScanned();

  public:
    QMenu* menu() const { return menu_; }
    ModelDock* dock() const { return dock_; }
    /// The sentences and Translate of an open encoder–decoder (Marian, T5).
    Seq2SeqDock* seq2seqDock() const { return seq2seq_; }
    /// True while the scene shows a run of the encoder–decoder the Translation dock holds.
    bool showsSeq2Seq() const;
    /// Gives the Translation dock FOLDER and its run OUTCOME of INPUT (a session reopening
    /// them), just before the scene shows the run.
    void takeSeq2Seq(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                     const Seq2SeqInput& input, const Seq2SeqOutcome& outcome);
    /// No message boxes: failures only return false (tests).
    void setQuiet(bool quiet) { quiet_ = quiet; }
    const QString& lastError() const { return lastError_; }
    /// Asked before a model replaces the document (File's unsaved-changes question): false
    /// cancels the open.
    void setConfirmReplace(std::function<bool()> confirm) { confirmReplace_ = std::move(confirm); }
    /// Makes an opened model's SPEC the scene as the undo step WHAT (File's: a new, untitled
    /// document in the same step); unset, the scene's setSpec.
    using ReplaceDocument = std::function<void(const attn::SceneSpec& spec, const QString& what)>;
    void setReplaceDocument(ReplaceDocument replace) { replaceDocument_ = std::move(replace); }

  private:
    void rebuildMenu();
    /// Looks through the cache as the scheduler's job "scan model cache"; the menu is rebuilt
    /// with the result. A slow disk or a FIFO planted in the cache never stalls the window.
    void scanCache();
    void fail(const QString& message);
    /// The first run of an encoder–decoder being opened: the Translation dock's sentences (the
    /// scene's sentence as the source when none was typed), translated when no target is.
    Seq2SeqInput seq2seqInput() const;
    /// Makes SPEC, the opened model DIR's scene, the document (one undo step).
    void replaceWithModel(const attn::SceneSpec& spec, const QString& dir);
    /// Shows the opened encoder–decoder's first run (one undo step, as any model's open).
    bool openSeq2Seq(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                     const Seq2SeqInput& input, const Seq2SeqOutcome& outcome, const QString& dir);

    MainWindow* window_;
    QMenu* menu_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* closeAction_ = nullptr;
    ModelDock* dock_ = nullptr;
    Seq2SeqDock* seq2seq_ = nullptr;
    QString lastError_;
    std::function<bool()> confirmReplace_;
    ReplaceDocument replaceDocument_;
    bool quiet_ = false;
    bool busy_ = false;          ///< a load is running (its event loop must not start another)
    QList<CachedModel> cached_;  ///< the last scan's folders
    bool scanned_ = false;       ///< a scan has delivered
};

}  // namespace fileio
