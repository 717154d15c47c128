// AttnScope — the Influence view's state and jobs. GPL-3.0-or-later.
#include "model/influence_model.hpp"

#include <algorithm>

#include "attn/scene/model_scene.hpp"
#include "model/scene.hpp"
#include "model/seq2seq_influence.hpp"
#include "model/view_state.hpp"

const QString InfluenceModel::kJob = QStringLiteral("influence");
const QString InfluenceModel::kFaithJob = QStringLiteral("influence faithfulness");

InfluenceModel* InfluenceModel::of(Scene* scene) {
    if (auto* m = scene->findChild<InfluenceModel*>(QString(), Qt::FindDirectChildrenOnly))
        return m;
    return new InfluenceModel(scene);
}

InfluenceModel::InfluenceModel(Scene* scene) : QObject(scene), scene_(scene) {}

InfluenceModel::~InfluenceModel() {
    Scheduler::instance().cancelAndWait(this);
}

void InfluenceModel::setTarget(attn::Index position, std::int32_t token) {
    target_ = {position, token};
    targetModel_ = scene_->spec().model;
    refresh();
}

void InfluenceModel::setSteps(int steps) {
    steps = std::clamp(steps, 1, 1024);
    if (steps == steps_) return;
    steps_ = steps;
    refresh();
}

void InfluenceModel::setErasures(int k) {
    erasures_ = std::clamp(k, 1, 64);
}

void InfluenceModel::setHead(int layer, int head) {
    if (layer == layer_ && head == head_) return;
    layer_ = layer;
    head_ = head;
    Q_EMIT headChanged();
}

void InfluenceModel::setComponent(attn::model::Component part) {
    if (part == component_) return;
    component_ = part;
    if (!seq2seq_) return;
    // The part's own layers: the head kept where the part has it.
    deliver(
        std::make_shared<const influence::Result>(influence::seq2seqResult(*seq2seq_, component_)));
}

void InfluenceModel::deliver(std::shared_ptr<const influence::Result> r) {
    result_ = std::move(r);
    faith_.reset();
    layer_ = std::clamp(layer_, 0, std::max(0, result_->layers - 1));
    head_ = std::clamp(head_, 0, std::max(0, result_->heads - 1));
    Q_EMIT resultChanged();
    Q_EMIT faithfulnessChanged();
}

void InfluenceModel::fail(const QString& error) {
    // The previous target's numbers would pass for this run's.
    result_.reset();
    faith_.reset();
    seq2seq_.reset();
    target_ = {};
    Q_EMIT resultChanged();
    Q_EMIT faithfulnessChanged();
    finishJob(error);
}

void InfluenceModel::refreshSeq2Seq() {
    const Seq2SeqShown::Run* shown = Seq2SeqShown::of(scene_)->matching(scene_->spec());
    // A token of another model's vocabulary means nothing in this one.
    if (shown->folder.get() != targetRun_) target_ = {};
    targetRun_ = shown->folder.get();
    Scheduler::instance().cancel(this, kFaithJob);
    if (layer_ < 0) layer_ = head_ = 0;
    const Seq2SeqShown::Run run = *shown;
    const influence::Target target = target_;
    const int steps = steps_;
    running_ = kJob;
    status_ = tr("Computing the gradient methods over the source and the target (integrated "
                 "gradients: %1 steps)…")
                  .arg(steps);
    job_ = Scheduler::instance().run(
        this, kJob,
        [run, target, steps](attn::Progress& progress) {
            return std::make_shared<const influence::Seq2SeqNumbers>(
                influence::computeSeq2Seq(run, target, steps, &progress));
        },
        [this](std::shared_ptr<const influence::Seq2SeqNumbers> n) {
            seq2seq_ = std::move(n);
            deliver(std::make_shared<const influence::Result>(
                influence::seq2seqResult(*seq2seq_, component_)));
            finishJob({});
        },
        [this](const QString& error) { fail(error); });
    Q_EMIT stateChanged();
}

void InfluenceModel::finishJob(const QString& status) {
    job_.reset();
    running_.clear();
    status_ = status;
    Q_EMIT stateChanged();
}

void InfluenceModel::refresh() {
    const attn::SceneSpec spec = scene_->spec();
    if (Seq2SeqShown::of(scene_)->matching(spec)) {
        refreshSeq2Seq();
        return;
    }
    seq2seq_.reset();
    // A token of another model's vocabulary means nothing in this one.
    if (spec.model != targetModel_) target_ = {};
    targetModel_ = spec.model;
    Scheduler::instance().cancel(this, kFaithJob);
    if (!spec.is_model()) {
        Scheduler::instance().cancel(this, kJob);
        result_.reset();
        faith_.reset();
        Q_EMIT resultChanged();
        Q_EMIT faithfulnessChanged();
        finishJob(
            tr("What each token contributed is read from a model's run: open a model "
               "folder (Model ▸ Open Model…)."));
        return;
    }
    if (layer_ < 0) {  // the first time: the window's layer and focused head
        layer_ = int(spec.layer);
        head_ = std::max(0, ViewState::of(scene_)->focusedHead());
    }
    const auto folder = spec.model;
    const influence::Target target = target_;
    const int steps = steps_;
    running_ = kJob;
    status_ = tr("Computing every method (integrated gradients: %1 steps)…").arg(steps);
    job_ = Scheduler::instance().run(
        this, kJob,
        [spec, folder, target, steps](attn::Progress& progress) {
            const std::vector<std::int32_t> ids = attn::model::checked_run_ids(spec);
            return std::make_shared<const influence::Result>(influence::compute(
                *folder, ids, attn::model::run_controls(spec), target, steps, &progress));
        },
        [this](std::shared_ptr<const influence::Result> r) {
            deliver(std::move(r));
            finishJob({});
        },
        [this](const QString& error) { fail(error); });
    Q_EMIT stateChanged();
}

void InfluenceModel::measureFaithfulness() {
    const attn::SceneSpec spec = scene_->spec();
    if (!result_ || !spec.is_model() || running_ == kJob || seq2seq_) return;
    const auto folder = spec.model;
    const auto shown = result_;
    const int k = erasures_;
    running_ = kFaithJob;
    status_ =
        tr("Erasing up to %1 tokens per method and %2 random orders…").arg(k).arg(kRandomOrders);
    job_ = Scheduler::instance().run(
        this, kFaithJob,
        [spec, folder, shown, k](attn::Progress& progress) {
            return std::make_shared<const influence::Faithfulness>(
                influence::faithfulness(*folder->model, attn::model::run_controls(spec), *shown, k,
                                        kRandomOrders, &progress));
        },
        [this, shown](std::shared_ptr<const influence::Faithfulness> f) {
            if (shown == result_) faith_ = std::move(f);
            Q_EMIT faithfulnessChanged();
            finishJob({});
        },
        [this](const QString& error) { finishJob(error); });
    Q_EMIT stateChanged();
}

void InfluenceModel::cancel() {
    if (running_.isEmpty()) return;
    const bool methods = running_ == kJob;
    Scheduler::instance().cancel(this, running_);
    finishJob(methods ? tr("Cancelled: nothing computed. Compute starts again.")
                      : tr("Cancelled: no curves measured."));
}
