// AttnScope — the "Translation" dock of an open encoder–decoder (Marian, T5): the source and
// target sentences, Translate, and the run's controls. GPL-3.0-or-later.
#pragma once

#include <QDockWidget>
#include <memory>

#include "model/seq2seq_run.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class Scene;

namespace fileio {

/// Shown while the scene is a run of the open encoder–decoder. The source box and the target
/// box (typed, or filled by Translate: greedy, or a beam search) run the model teacher-forced as
/// the scheduler's job "seq2seq run"; its encoder, decoder and cross-attention become the
/// scene's three components (Loaded data ▸ Component picks one), one undo step a run.
class Seq2SeqDock : public QDockWidget {
    Q_OBJECT
  public:
    explicit Seq2SeqDock(Scene* scene, QWidget* parent = nullptr);

    /// The folder the dock runs, and the run the scene shows of it (opening a model).
    void setFolder(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                   const Seq2SeqInput& input, const Seq2SeqOutcome& outcome);
    const attn::model::Seq2SeqFolder* folder() const { return folder_.get(); }
    /// The same folder, shared (the Interventions tab's jobs keep it while they run).
    std::shared_ptr<const attn::model::Seq2SeqFolder> sharedFolder() const { return folder_; }

    QLineEdit* sourceEdit() const { return source_; }
    QLineEdit* targetEdit() const { return target_; }
    QSpinBox* beamBox() const { return beam_; }
    QSpinBox* maxTokensBox() const { return maxTokens_; }
    QComboBox* scaleBox() const { return scale_; }
    QLineEdit* ablateEdit() const { return ablate_; }
    QPushButton* translateButton() const { return translate_; }
    QPushButton* runButton() const { return run_; }
    QLabel* statusLabel() const { return status_; }
    /// The last translation's ids (no start token), empty when the target was typed.
    const std::vector<std::int32_t>& translation() const { return translation_; }
    /// True while the target box holds the last translation untouched, not a typed target.
    bool targetIsTranslation() const {
        return !translation_.empty() && target_->text() == translatedText_;
    }

    /// The height that shows every row without scrolling (title bar included).
    int wholeHeight() const;
    /// What the controls ask for; TRANSLATE: the model's translation rather than the target.
    /// False (with the reason in the status line) when the heads to ablate do not parse.
    bool input(bool translate, Seq2SeqInput* out);
    /// Runs the source and target (Show attention), or translates first (Translate).
    void start(bool translate);
    /// Adds HEAD to the heads ablated, or removes it when it is there, and runs again.
    void toggleAblation(const attn::model::Site& head);
    /// Whether HEAD is among the heads the Ablate box lists.
    bool isAblated(const attn::model::Site& head) const;

  Q_SIGNALS:
    /// A run was shown (or failed: the status line says why).
    void finished();

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    /// Asks for the height that shows every row at the dock's width, the status line last among
    /// them (the controls' dock above gives way and scrolls), up to 3/5 of the window's height.
    void fitRows();
    void sync();
    void deliver(const Seq2SeqInput& input, const Seq2SeqOutcome& outcome);
    /// Records the run the scene is about to show (Seq2SeqShown).
    void record(const Seq2SeqInput& input, const Seq2SeqOutcome& outcome);
    void showOutcome(const Seq2SeqOutcome& outcome);
    void setStatus(const QString& text, bool error = false);

    Scene* scene_;
    std::shared_ptr<const attn::model::Seq2SeqFolder> folder_;
    QLabel* about_;
    QLineEdit* source_;
    QLineEdit* target_;
    QSpinBox* beam_;
    QSpinBox* maxTokens_;
    QComboBox* scale_;
    QLineEdit* ablate_;
    QPushButton* translate_;
    QPushButton* run_;
    QLabel* status_;
    std::vector<std::int32_t> translation_;  ///< ids of the target box's text while untouched
    QString translatedText_;                 ///< the text Translate put in the target box
    /// The sentences of each run shown, so that undo and redo bring their boxes back.
    struct Shown {
        std::weak_ptr<const attn::AttentionData> data;
        QString source, target;
        std::vector<std::int32_t> translation;
    };
    std::vector<Shown> shown_;
    const attn::AttentionData* lastData_ = nullptr;  ///< the run shown at the last sync
    /// Remembers the boxes as the sentences of DATA's run.
    void remember(const std::shared_ptr<const attn::AttentionData>& data);
};

}  // namespace fileio
