// AttnScope — activation patching: how much of the clean answer each head, and the residual
// stream at each layer and position, restores in a corrupted run. GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "attn/interventions/patching.hpp"

class CellMap;
class JobState;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;
class Scene;

/// What the maps on show were computed from, as the user named it.
struct PatchInputs {
    QString clean, corrupt;             ///< the prompts' text
    QString answer, wrong;              ///< the answers as tokenName gives them
    QString answerText, wrongText;      ///< the answer tokens' own text (exports' labels)
    QStringList tokens, corruptTokens;  ///< each prompt's tokens, drawable
    std::vector<int> differing;         ///< the positions where the prompts' tokens differ
};

/// Clean prompt = the scene's sentence; the corrupted prompt and the two answers typed. Run
/// starts the scheduler's cancellable job kJob ("patching") with a progress bar; the result is
/// a layers × heads map and a (layers + 1) × positions map of the fraction of the logit
/// difference restored, under a caption naming the prompts, answers and logit differences and
/// warning when the difference between them is too small for the fractions to be stable. The
/// caption and maps are the view's figure (what exports draw). Prompts of unequal token length
/// are refused, naming both lengths.
class PatchingView : public QWidget {
    Q_OBJECT
  public:
    explicit PatchingView(Scene* scene, QWidget* parent = nullptr);
    ~PatchingView() override;
    static const QString kJob;

    const attn::interv::PatchResult& result() const { return result_; }
    /// The spec of the result on show (its prompts and answers).
    const attn::interv::PatchSpec& patchSpec() const { return shown_; }
    const PatchInputs& inputs() const { return inputs_; }
    /// The caption above the maps and its warning (hidden when the result is stable).
    QLabel* caption() const { return caption_; }
    QLabel* warning() const { return warning_; }
    /// The caption and the maps: what an export draws.
    QWidget* figure() const { return figure_; }
    CellMap* headMap() const { return heads_; }
    CellMap* residMap() const { return resid_; }
    QLineEdit* corruptEdit() const { return corrupt_; }
    QLineEdit* answerEdit() const { return answer_; }
    QLineEdit* wrongEdit() const { return wrong_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* stopButton() const { return stop_; }
    QProgressBar* progress() const { return progress_; }
    QLabel* status() const { return status_; }
    bool running() const { return running_; }
    /// Starts the job (false, with the reason shown, when the input is refused).
    bool start();
    void stop();

  Q_SIGNALS:
    void finished();

  private:
    void display(attn::interv::PatchResult result, attn::interv::PatchSpec spec,
                 PatchInputs inputs);
    QString cellTip(const QString& where, double fraction) const;
    void ended(const QString& message);
    void syncClean();
    /// "" while the maps are of the scene on show, else a line (starting a new one) saying
    /// they are out of date.
    QString staleNote() const;

    Scene* scene_;
    QLabel* clean_;
    QLineEdit* corrupt_;
    QLineEdit* answer_;
    QLineEdit* wrong_;
    QPushButton* run_;
    QPushButton* stop_;
    QProgressBar* progress_;
    QLabel* status_;
    QWidget* figure_;
    QLabel* caption_;
    QLabel* warning_;
    CellMap* heads_;
    CellMap* resid_;
    QTimer* poll_;
    std::shared_ptr<JobState> job_;
    bool running_ = false;
    attn::interv::PatchResult result_;
    attn::interv::PatchSpec shown_;
    PatchInputs inputs_;
    /// The model and clean prompt of the maps on show, and of the run going.
    std::shared_ptr<const attn::model::ModelFolder> shownModel_, jobModel_;
    std::string shownText_, jobText_;
    QString message_;  ///< the status line's last word (the run's, or a refusal)
};
