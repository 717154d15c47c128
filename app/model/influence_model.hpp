// AttnScope — the Influence view's state and jobs: the explained prediction, its methods'
// numbers and the faithfulness curves, one owner per scene. GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "attn/models/model.hpp"
#include "attn/models/seq2seq.hpp"
#include "model/influence_compute.hpp"
#include "model/scheduler.hpp"

class Scene;
namespace influence {
struct Seq2SeqNumbers;
}

/// What the Influence view shows, and the one place it is computed: the job kJob (every method
/// of the target, integrated gradients' steps included) and kFaithJob (the erasure curves),
/// each on the application's scheduler with progress and cancel. The target follows the user's
/// pick (a token of a position's top 5) and stays while the sentence still has its position and
/// the model is the same.
class InfluenceModel : public QObject {
    Q_OBJECT
  public:
    static const QString kJob, kFaithJob;
    /// Random orders of the faithfulness baseline.
    static constexpr int kRandomOrders = 10;
    /// SCENE's model (created on first use, a child of the scene).
    static InfluenceModel* of(Scene* scene);
    ~InfluenceModel() override;

    /// The numbers on show (null before the first or for a scene without a model).
    const influence::Result* result() const { return result_.get(); }
    /// The curves on show (null until measured for the result on show).
    const influence::Faithfulness* faithfulness() const { return faith_.get(); }
    const influence::Target& target() const { return target_; }
    int steps() const { return steps_; }
    int erasures() const { return erasures_; }
    /// The head whose attention row and attention × gradient are shown (layer, head from 0).
    int layer() const { return layer_; }
    int head() const { return head_; }
    /// The job running (null when none): its fraction, for the progress bar.
    JobHandle job() const { return job_; }
    bool busy() const { return job_ != nullptr; }
    /// Which job runs (kJob, kFaithJob or "").
    const QString& running() const { return running_; }
    /// The last status line: what is computed, why nothing is, or the failure.
    const QString& status() const { return status_; }

    /// Explains TOKEN at POSITION: recomputes every method.
    void setTarget(attn::Index position, std::int32_t token);
    /// Integrated gradients' steps M (1 … 1024); recomputes.
    void setSteps(int steps);
    /// The erasure curves' K (tokens erased, 1 … 64); the next measure uses it.
    void setErasures(int k);
    void setHead(int layer, int head);
    /// The part of an encoder–decoder's run in the per-head maps (redrawn, not recomputed).
    void setComponent(attn::model::Component part);
    attn::model::Component component() const { return component_; }
    /// Computes the result of the scene's spec and target (the view calls it while visible).
    void refresh();
    /// Measures the erasure curves of the result on show.
    void measureFaithfulness();
    /// Stops the job running; nothing of it is delivered.
    void cancel();

  Q_SIGNALS:
    void resultChanged();
    void faithfulnessChanged();
    void headChanged();
    /// A job started or ended (delivered, failed or cancelled), or the status line changed.
    void stateChanged();

  private:
    explicit InfluenceModel(Scene* scene);
    void finishJob(const QString& status);
    /// refresh() of an encoder–decoder's run (the Translation dock's).
    void refreshSeq2Seq();
    void deliver(std::shared_ptr<const influence::Result> r);
    void fail(const QString& error);

    Scene* scene_;
    std::shared_ptr<const influence::Result> result_;
    std::shared_ptr<const influence::Faithfulness> faith_;
    std::shared_ptr<const influence::Seq2SeqNumbers> seq2seq_;  ///< the run's, when seq2seq
    attn::model::Component component_ = attn::model::Component::Cross;
    const void* targetRun_ = nullptr;  ///< the encoder–decoder folder of the target token
    influence::Target target_;
    std::shared_ptr<const attn::model::ModelFolder> targetModel_;  ///< the target token's model
    int steps_ = 32;
    int erasures_ = 6;
    int layer_ = -1, head_ = 0;
    JobHandle job_;
    QString running_, status_;
};
