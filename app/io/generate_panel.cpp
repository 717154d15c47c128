// AttnScope — the Model dock's Generate section. GPL-3.0-or-later.
#include "io/generate_panel.hpp"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>

#include "attn/scene/model_scene.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/undo_command.hpp"
#include "views/shown_text.hpp"

namespace fileio {

namespace {

const QString kGenerateJob = QStringLiteral("generate");

}  // namespace

attn::gen::GenerateOptions LiveOptions::next() {
    std::unique_lock lock(mutex_);
    released_.wait(lock, [this] { return allowed_ != 0; });
    if (allowed_ > 0) --allowed_;
    return options_;
}

void LiveOptions::release() {
    {
        const std::lock_guard lock(mutex_);
        allowed_ = -1;
    }
    released_.notify_all();
}

GeneratePanel::GeneratePanel(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      tokens_(new QSpinBox),
      greedy_(new QCheckBox(tr("&Greedy"))),
      temperature_(new QDoubleSpinBox),
      topK_(new QSpinBox),
      topP_(new QDoubleSpinBox),
      seed_(new QSpinBox),
      generate_(new QPushButton(tr("&Generate"))),
      stop_(new QPushButton(tr("Sto&p"))),
      slider_(new QSlider(Qt::Horizontal)),
      text_(new QLabel),
      status_(new QLabel),
      candidates_(new QListWidget) {
    setObjectName(QStringLiteral("generatePanel"));
    tokens_->setRange(1, 4096);
    tokens_->setValue(16);
    tokens_->setToolTip(
        tr("At most this many new tokens (fewer at a stop token or the model's "
           "last position)"));
    greedy_->setChecked(true);
    greedy_->setToolTip(tr("Take the most probable token; off: sample with the settings below"));
    temperature_->setRange(0.0, 100.0);
    temperature_->setDecimals(2);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(1.0);
    temperature_->setToolTip(tr("τ dividing the logits before sampling (0: greedy)"));
    topK_->setRange(0, 1 << 20);
    topK_->setSpecialValueText(tr("off"));
    topK_->setToolTip(tr("Keep only the k most probable tokens (off: all)"));
    topP_->setRange(0.01, 1.0);
    topP_->setDecimals(2);
    topP_->setSingleStep(0.05);
    topP_->setValue(1.0);
    topP_->setToolTip(
        tr("Keep the smallest set of most probable tokens whose probability "
           "reaches p (1: all)"));
    seed_->setRange(0, 1 << 30);
    seed_->setToolTip(tr("The draw's seed: the same seed gives the same text"));
    for (QAbstractSpinBox* b :
         {static_cast<QAbstractSpinBox*>(tokens_), static_cast<QAbstractSpinBox*>(temperature_),
          static_cast<QAbstractSpinBox*>(topK_), static_cast<QAbstractSpinBox*>(topP_),
          static_cast<QAbstractSpinBox*>(seed_)})
        b->setKeyboardTracking(false);
    slider_->setRange(0, 0);
    slider_->setToolTip(
        tr("Go back to a step: the sentence up to that token, and the top 10 it "
           "was chosen from"));
    text_->setWordWrap(true);
    text_->setTextFormat(Qt::RichText);
    // The dock's width is the user's: long text wraps inside it (between tokens) and never
    // widens the column past the dock (which cut off Stop and the probabilities).
    for (QLabel* l : {text_, status_}) {
        l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        l->setMinimumWidth(1);
    }
    text_->setToolTip(
        tr("Each token shaded by its probability given the tokens before it "
           "(darker: more probable); generated tokens underlined"));
    status_->setWordWrap(true);
    // Before a first token, an empty top-10 box and a one-position slider looked broken.
    setStepsShown(false);
    candidates_->setMaximumHeight(190);
    candidates_->setToolTip(
        tr("The 10 most probable tokens of the step: probability under the "
           "sampling settings, then the model's; those cut by top-k/top-p "
           "greyed"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Tokens:"), tokens_);
    form->addRow(greedy_);
    form->addRow(tr("T&emperature:"), temperature_);
    form->addRow(tr("Top-&k:"), topK_);
    form->addRow(tr("Top-&p:"), topP_);
    form->addRow(tr("&Seed:"), seed_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(generate_);
    buttons->addWidget(stop_);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 6, 0, 0);
    column->addWidget(new QLabel(tr("<b>Generate</b>")));
    column->addLayout(form);
    column->addLayout(buttons);
    column->addWidget(text_);
    column->addWidget(slider_);
    column->addWidget(status_);
    column->addWidget(candidates_);

    connect(generate_, &QPushButton::clicked, this, &GeneratePanel::start);
    connect(stop_, &QPushButton::clicked, this, &GeneratePanel::stop);
    connect(slider_, &QSlider::valueChanged, this, &GeneratePanel::showStep);
    connect(greedy_, &QCheckBox::toggled, this, &GeneratePanel::syncLive);
    for (QSpinBox* b : {tokens_, topK_, seed_})
        connect(b, &QSpinBox::valueChanged, this, &GeneratePanel::syncLive);
    for (QDoubleSpinBox* b : {temperature_, topP_})
        connect(b, &QDoubleSpinBox::valueChanged, this, &GeneratePanel::syncLive);
    // The scene's controls (scaling, τ, mask, ablated heads) reach the next step too.
    connect(scene_, &Scene::specChanged, this, &GeneratePanel::syncLive);
    syncLive();
}

GeneratePanel::~GeneratePanel() {
    live_->release();  // a held worker would never see the cancel
    Scheduler::instance().cancelAndWait(this);
}

attn::gen::GenerateOptions GeneratePanel::options() const {
    attn::gen::GenerateOptions o;
    o.tokens = tokens_->value();
    o.sampling.greedy = greedy_->isChecked();
    o.sampling.temperature = float(temperature_->value());
    o.sampling.top_k = topK_->value();
    o.sampling.top_p = float(topP_->value());
    o.sampling.seed = std::uint64_t(seed_->value());
    if (scene_->spec().is_model()) o.controls = attn::model::run_controls(scene_->spec());
    return o;
}

void GeneratePanel::setStepsShown(bool shown) {
    slider_->setVisible(shown);
    candidates_->setVisible(shown);
}

void GeneratePanel::syncLive() {
    live_->set(options());
    syncEnabled();
}

void GeneratePanel::syncEnabled() {
    const attn::SceneSpec& spec = scene_->spec();
    const bool causal = spec.is_model() && spec.model->model->info().causal;
    generate_->setEnabled(causal && !running_);
    stop_->setEnabled(running_);
    for (QWidget* w : {static_cast<QWidget*>(temperature_), static_cast<QWidget*>(topK_),
                       static_cast<QWidget*>(topP_), static_cast<QWidget*>(seed_)})
        w->setEnabled(!greedy_->isChecked());
    if (spec.is_model() && !causal)
        status_->setText(tr("%1 sees the whole sentence at once and does not generate")
                             .arg(QString::fromStdString(spec.model->model->info().display)));
}

void GeneratePanel::start() {
    const attn::SceneSpec& spec = scene_->spec();
    if (running_ || !spec.is_model() || !spec.model->model->info().causal) return;
    model_ = spec.model;
    std::vector<std::int32_t> prompt;
    try {
        prompt = spec.run_ids();  // the ids shown: a generation's own, when it made the text
    } catch (const std::exception&) {
        prompt.clear();
    }
    if (prompt.empty()) {
        status_->setText(tr("Type a sentence to continue first"));
        return;
    }
    const std::uint64_t run = ++run_;
    running_ = true;
    end_ = End::Running;
    shown_ = {};
    candidates_->clear();
    setStepsShown(false);
    {
        const QSignalBlocker block(slider_);
        slider_->setRange(0, 0);
    }
    status_->setText(tr("Generating…"));
    syncLive();
    const std::shared_ptr<LiveOptions> live = live_;
    const std::shared_ptr<const attn::model::ModelFolder> folder = model_;
    const QPointer<GeneratePanel> self(this);
    // Each token goes to the GUI thread as it is made (through the application object, which
    // outlives every panel; a panel gone meanwhile is skipped).
    const auto post = [self](std::function<void(GeneratePanel&)> f) {
        QMetaObject::invokeMethod(
            qApp,
            [self, f = std::move(f)] {
                if (self) f(*self);
            },
            Qt::QueuedConnection);
    };
    Scheduler::instance().submit(
        this, kGenerateJob,
        [post, live, folder, prompt, run, self](attn::Progress& progress) -> Scheduler::Delivery {
            const attn::model::Model& model = *folder->model;
            attn::gen::GenerateOptions o = live->next();
            attn::gen::Generation g = attn::gen::start(model, prompt, o.controls, &progress);
            post([run, g](GeneratePanel& p) { p.onStarted(run, g); });
            const std::optional<std::int32_t> eos = attn::gen::eos_id(*folder->tokenizer);
            attn::gen::StopReason reason = attn::gen::StopReason::Tokens;
            for (;;) {
                o = live->next();  // a control changed during the run applies from here
                if (const auto end = attn::gen::stop_after(model, g, o, eos)) {
                    reason = *end;
                    break;
                }
                attn::gen::Step s = attn::gen::step(model, g, o, &progress);
                post([run, s, lp = g.logprobs](GeneratePanel& p) { p.onStep(run, s, lp); });
            }
            // Ended through the same queue as the tokens, so it arrives after the last of them.
            post([run, reason](GeneratePanel& p) { p.onEnded(run, {}, false, reason); });
            return {};
        },
        [self, run](const QString& error) {
            if (self) self->onEnded(run, error);
        });
    syncEnabled();
}

void GeneratePanel::stop() {
    if (!running_) return;
    // Nothing of a cancelled job is delivered: the panel ends it itself. Tokens already posted
    // still arrive (same run number) and stay.
    // Cancelled before a held worker is let go: it then makes no further step.
    Scheduler::instance().cancel(this, kGenerateJob);
    live_->release();  // a held worker would never see the cancel
    onEnded(run_, {}, true);
}

void GeneratePanel::onStarted(std::uint64_t run, attn::gen::Generation g) {
    if (run != run_) return;
    shown_ = std::move(g);
    renderText();
}

void GeneratePanel::onStep(std::uint64_t run, attn::gen::Step step, std::vector<float> logprobs) {
    if (run != run_) return;
    const bool following = shown_.choices.empty() || slider_->value() == slider_->maximum();
    shown_.ids = step.run->ids;
    shown_.logprobs = std::move(logprobs);
    shown_.choices.push_back(step.choice);
    shown_.run = step.run;
    const int last = int(shown_.choices.size()) - 1;
    {
        const QSignalBlocker block(slider_);
        slider_->setRange(0, last);
    }
    setStepsShown(true);
    if (following) {
        const QSignalBlocker block(slider_);
        slider_->setValue(last);
    }
    if (following) showStep(last);
    renderText();
    Q_EMIT stepAdded(last);
}

void GeneratePanel::onEnded(std::uint64_t run, const QString& error, bool stopped,
                            attn::gen::StopReason reason) {
    if (run != run_ || !running_) return;
    running_ = false;
    syncEnabled();
    end_ = !error.isEmpty() ? End::Failed : stopped ? End::Stopped : End::Done;
    error_ = error;
    reason_ = reason;
    status_->setText(endNote());
    if (!shown_.choices.empty()) showStep(slider_->value());
    Q_EMIT finished();
}

}  // namespace fileio
