// AttnScope — the Model dock's Generate section: tokens made one by one from the sentence, with
// their log-probabilities, and a step slider back through them. GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "attn/generate/generate.hpp"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class Scene;

namespace fileio {

/// The options a running generation reads before each step: a control changed meanwhile
/// applies from the next step (shared by the panel and its worker).
class LiveOptions {
  public:
    /// The options now.
    attn::gen::GenerateOptions get() const {
        const std::lock_guard lock(mutex_);
        return options_;
    }
    void set(attn::gen::GenerateOptions options) {
        const std::lock_guard lock(mutex_);
        options_ = std::move(options);
    }
    /// The worker's read, at its start and before each step: get(), after waiting while held.
    attn::gen::GenerateOptions next();
    /// Lets the worker read READS more times, then holds it before the next read until
    /// release(): a test changes a control at a known step.
    void holdAfter(int reads) {
        const std::lock_guard lock(mutex_);
        allowed_ = std::max(0, reads);
    }
    /// Lets the worker run freely (Stop and closing release it too).
    void release();

  private:
    mutable std::mutex mutex_;
    std::condition_variable released_;
    attn::gen::GenerateOptions options_;
    int allowed_ = -1;  ///< reads left before the hold; −1: no hold
};

/// Generate N tokens after the scene's sentence with its model, greedy or sampled, as the
/// scheduler's cancellable job "generate". Each new token is appended to the sentence (the sentence
/// box and every view follow, the heatmaps a row longer), its log-probability shown as shaded
/// text; the step slider goes back to any step, showing the sentence up to that token and the
/// top 10 it was chosen from, those cut by top-k/top-p marked.
class GeneratePanel : public QWidget {
    Q_OBJECT
  public:
    explicit GeneratePanel(Scene* scene, QWidget* parent = nullptr);
    ~GeneratePanel() override;

    QSpinBox* tokensBox() const { return tokens_; }
    QCheckBox* greedyBox() const { return greedy_; }
    QDoubleSpinBox* temperatureBox() const { return temperature_; }
    QSpinBox* topKBox() const { return topK_; }
    QDoubleSpinBox* topPBox() const { return topP_; }
    QSpinBox* seedBox() const { return seed_; }
    QPushButton* generateButton() const { return generate_; }
    QPushButton* stopButton() const { return stop_; }
    QSlider* stepSlider() const { return slider_; }
    QLabel* textLabel() const { return text_; }
    QListWidget* distribution() const { return candidates_; }
    /// What the generation did: "Generating…", how it ended (stopped, done, an error), the step.
    QLabel* statusLabel() const { return status_; }

    /// True while the job runs.
    bool running() const { return running_; }
    /// The generation as streamed so far (ids, log-probabilities, one choice per token).
    const attn::gen::Generation& generation() const { return shown_; }
    /// The options the next step will use: the controls here and the scene's run controls.
    attn::gen::GenerateOptions options() const;
    /// What the running job reads before each step.
    LiveOptions& live() const { return *live_; }

    /// Starts generating after the scene's sentence (a model scene's; otherwise nothing).
    void start();
    /// Stops the job; the tokens made so far stay.
    void stop();

  Q_SIGNALS:
    /// A token was added (step from 0).
    void stepAdded(int step);
    /// The generation ended (N tokens, a stop token, the model's end, Stop, or an error).
    void finished();

  private:
    void onStarted(std::uint64_t run, attn::gen::Generation g);
    void onStep(std::uint64_t run, attn::gen::Step step, std::vector<float> logprobs);
    void onEnded(std::uint64_t run, const QString& error, bool stopped = false,
                 attn::gen::StopReason reason = attn::gen::StopReason::Tokens);
    /// How the last generation ended, said above its step's line: counted when said, since
    /// tokens posted before a Stop still arrive after it.
    QString endNote() const;
    void showStep(int step);
    void syncEnabled();
    void syncLive();
    /// The step slider and the top-10 list: shown from the first generated token on.
    void setStepsShown(bool shown);
    void renderText();

    Scene* scene_;
    QSpinBox* tokens_;
    QCheckBox* greedy_;
    QDoubleSpinBox* temperature_;
    QSpinBox* topK_;
    QDoubleSpinBox* topP_;
    QSpinBox* seed_;
    QPushButton* generate_;
    QPushButton* stop_;
    QSlider* slider_;
    QLabel* text_;
    QLabel* status_;
    QListWidget* candidates_;
    std::shared_ptr<LiveOptions> live_ = std::make_shared<LiveOptions>();
    std::shared_ptr<const attn::model::ModelFolder> model_;  ///< the running generation's
    attn::gen::Generation shown_;
    std::uint64_t run_ = 0;  ///< the current job's number: deliveries of older ones are dropped
    bool running_ = false;
    enum class End { Running, Done, Stopped, Failed } end_ = End::Running;
    QString error_;  ///< why the last generation failed (End::Failed)
    /// Why the last generation ended by itself (End::Done): fewer tokens than asked say why.
    attn::gen::StopReason reason_ = attn::gen::StopReason::Tokens;
};

}  // namespace fileio
