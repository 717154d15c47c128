// AttnScope — the "Translation" dock of an open encoder–decoder. GPL-3.0-or-later.
#include "io/seq2seq_dock.hpp"

#include <QBoxLayout>
#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <exception>
#include <new>

#include "attn/models/seq2seq_scaling.hpp"
#include "io/model_dock.hpp"
#include "model/error_text.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/seq2seq_influence.hpp"
#include "tab_docks.hpp"
#include "views/shown_text.hpp"
#include "widgets/column_scroll.hpp"

namespace fileio {
namespace {

/// What a run gave, or why it did not.
struct Delivered {
    Seq2SeqOutcome outcome;
    QString error;
};

/// What the model is, for the dock's first line.
QString seq2seqAbout(const attn::model::Seq2SeqFolder& f) {
    const attn::model::Seq2SeqInfo& i = f.model->info();
    return Seq2SeqDock::tr(
               "<b>%1</b> — %2 encoder–decoder: %3 + %4 layers, %5 heads of d<sub>k</sub> "
               "%6, d %7, %8; scores %9")
        .arg(modelName(QString::fromStdString(f.dir)).toHtmlEscaped(),
             QString::fromStdString(i.display))
        .arg(i.encoder_layers)
        .arg(i.decoder_layers)
        .arg(i.heads)
        .arg(i.head_dim)
        .arg(i.d_model)
        .arg(QString::fromStdString(i.dtype),
             i.scales_scores ? Seq2SeqDock::tr("scaled by 1/√d<sub>k</sub>")
                             : Seq2SeqDock::tr("not scaled (as the model was trained)"));
}

}  // namespace

Seq2SeqDock::Seq2SeqDock(Scene* scene, QWidget* parent)
    : QDockWidget(tr("Translation"), parent),
      scene_(scene),
      about_(new QLabel),
      source_(new QLineEdit),
      target_(new QLineEdit),
      beam_(new QSpinBox),
      maxTokens_(new QSpinBox),
      scale_(new QComboBox),
      ablate_(new QLineEdit),
      translate_(new QPushButton(tr("&Translate"))),
      run_(new QPushButton(tr("Show &attention"))),
      status_(new QLabel) {
    setObjectName(QStringLiteral("seq2seqDock"));
    source_->setObjectName(QStringLiteral("seq2seqSource"));
    target_->setObjectName(QStringLiteral("seq2seqTarget"));
    about_->setWordWrap(true);
    about_->setTextFormat(Qt::RichText);
    source_->setToolTip(tr("The sentence the encoder reads (Enter: translate it)"));
    target_->setPlaceholderText(tr("empty: Translate fills it"));
    target_->setToolTip(
        tr("The decoder's sentence, typed or the model's translation: the run is teacher-forced "
           "over it (Enter: show its attention)"));
    // Typed numbers apply when done: "12" must not translate with 1 on the way.
    beam_->setKeyboardTracking(false);
    maxTokens_->setKeyboardTracking(false);
    beam_->setRange(1, 16);
    beam_->setToolTip(tr("Beam width of Translate: 1 is greedy"));
    maxTokens_->setRange(1, 512);
    maxTokens_->setValue(64);
    maxTokens_->setToolTip(tr("Translate stops after this many tokens"));
    scale_->addItems({tr("the model's own"), tr("on"), tr("off")});
    scale_->setToolTip(
        tr("Scale every score by 1/√d_k: Marian does, T5 does not; switching it "
           "shows what the other choice would do to the weights"));
    ablate_->setPlaceholderText(tr("e.g. cross.0.1, encoder.1.0"));
    ablate_->setToolTip(
        tr("Heads whose output is zeroed, PART.LAYER.HEAD counted from 0 (PART: "
           "encoder, decoder or cross); the run and Translate follow"));
    status_->setWordWrap(true);
    status_->setTextFormat(Qt::PlainText);  // "</s>" is text
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* search = new QHBoxLayout;
    search->addWidget(new QLabel(tr("beam")));
    search->addWidget(beam_);
    search->addWidget(new QLabel(tr("max tokens")));
    search->addWidget(maxTokens_);
    search->addStretch();
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(translate_);
    buttons->addWidget(run_);
    buttons->addStretch();
    auto* body = new QWidget;
    auto* form = new QFormLayout(body);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(about_);
    form->addRow(tr("&Source:"), source_);
    form->addRow(tr("Tar&get:"), target_);
    form->addRow(tr("Search:"), search);
    form->addRow(tr("Scale 1/√d_k:"), scale_);
    form->addRow(tr("A&blate heads:"), ablate_);
    form->addRow(buttons);
    form->addRow(status_);
    setWidget(new ColumnScroll(body));  // scrolls rather than push the window past the screen
    connect(translate_, &QPushButton::clicked, this, [this] { start(true); });
    connect(run_, &QPushButton::clicked, this, [this] { start(false); });
    connect(source_, &QLineEdit::returnPressed, this, [this] { start(true); });
    connect(target_, &QLineEdit::returnPressed, this, [this] { start(false); });
    connect(scene_, &Scene::specChanged, this, &Seq2SeqDock::sync);
    hide();
}

void Seq2SeqDock::setFolder(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                            const Seq2SeqInput& input, const Seq2SeqOutcome& outcome) {
    folder_ = std::move(folder);
    about_->setText(seq2seqAbout(*folder_));
    fitRows();
    const QSignalBlocker b1(source_), b2(target_);
    source_->setText(QString::fromStdString(input.source));
    source_->setCursorPosition(0);
    translation_.clear();
    translatedText_.clear();
    if (!input.translate) target_->setText(QString::fromStdString(input.target));
    if (!input.translate && !input.targetIds.empty()) {  // a translation, as a session saved it
        translation_ = input.targetIds;
        translatedText_ = target_->text();
    }
    ablate_->setText(seq2seqHeadsText(input.options.controls.ablate));
    const std::optional<bool> scale = input.options.controls.scale;
    scale_->setCurrentIndex(!scale ? 0 : *scale ? 1 : 2);
    showOutcome(outcome);
    shown_.clear();
    remember(outcome.data);
    record(input, outcome);
    sync();
}

void Seq2SeqDock::remember(const std::shared_ptr<const attn::AttentionData>& data) {
    std::erase_if(shown_, [](const Shown& s) { return s.data.expired(); });
    shown_.push_back({data, source_->text(), target_->text(),
                      targetIsTranslation() ? translation_ : std::vector<std::int32_t>{}});
}

int Seq2SeqDock::wholeHeight() const {
    const auto* scroll = static_cast<const QScrollArea*>(widget());
    return scroll->widget()->sizeHint().height() + fontMetrics().height() * 2;
}

void Seq2SeqDock::resizeEvent(QResizeEvent* event) {
    QDockWidget::resizeEvent(event);
    fitRows();  // another width wraps the text into another number of lines
}

void Seq2SeqDock::fitRows() {
    auto* scroll = static_cast<QScrollArea*>(widget());
    const QWidget* body = scroll->widget();
    const int need = body->hasHeightForWidth() ? body->heightForWidth(scroll->width())
                                               : body->sizeHint().height();
    const int most = window() != this ? window()->height() * 3 / 5 : need;
    scroll->setMinimumHeight(std::min(need, most));
}

bool Seq2SeqDock::input(bool translate, Seq2SeqInput* out) {
    out->source = source_->text().toStdString();
    out->target = target_->text().toStdString();
    out->translate = translate;
    if (!translate && targetIsTranslation()) out->targetIds = translation_;
    out->options.beam = beam_->value();
    out->options.max_tokens = maxTokens_->value();
    if (scale_->currentIndex() > 0) out->options.controls.scale = scale_->currentIndex() == 1;
    if (const QString heads = ablate_->text().trimmed(); !heads.isEmpty()) {
        const QString bad = parseSeq2SeqHeads(heads, &out->options.controls.ablate);
        if (!bad.isEmpty()) {
            setStatus(
                tr("Ablate heads: “%1” is not PART.LAYER.HEAD (PART encoder, decoder or cross)")
                    .arg(bad),
                true);
            return false;
        }
    }
    return true;
}

void Seq2SeqDock::start(bool translate) {
    if (!folder_) return;
    Seq2SeqInput in;
    if (!input(translate, &in)) return;
    if (!translate && in.target.empty() && in.targetIds.empty()) in.translate = true;
    setStatus(in.translate ? tr("Translating…") : tr("Running the model…"));
    translate_->setEnabled(false);
    run_->setEnabled(false);
    const QString subject = tr("the model %1").arg(modelName(QString::fromStdString(folder_->dir)));
    Scheduler::instance().run(
        this, QStringLiteral("seq2seq run"),
        [folder = folder_, in, subject](attn::Progress&) {
            Delivered d;
            try {
                d.outcome = runSeq2Seq(*folder, in);
            } catch (const std::bad_alloc&) {
                d.error = tr("Not enough memory for this run: use shorter sentences.");
            } catch (const std::exception& e) {
                d.error = errorText(e, subject);
            }
            return d;
        },
        [this, in](Delivered d) {
            translate_->setEnabled(true);
            run_->setEnabled(true);
            if (d.error.isEmpty())
                deliver(in, d.outcome);
            else
                setStatus(d.error, true);
            Q_EMIT finished();
        });
}

bool Seq2SeqDock::isAblated(const attn::model::Site& head) const {
    std::vector<attn::model::Site> heads;
    if (const QString text = ablate_->text().trimmed(); !text.isEmpty())
        parseSeq2SeqHeads(text, &heads);
    return std::find(heads.begin(), heads.end(), head) != heads.end();
}

void Seq2SeqDock::toggleAblation(const attn::model::Site& head) {
    std::vector<attn::model::Site> heads;
    if (const QString text = ablate_->text().trimmed(); !text.isEmpty())
        if (!parseSeq2SeqHeads(text, &heads).isEmpty()) heads.clear();  // the box's typo goes
    const auto at = std::find(heads.begin(), heads.end(), head);
    if (at != heads.end())
        heads.erase(at);
    else
        heads.push_back(head);
    ablate_->setText(seq2seqHeadsText(heads));
    start(false);
}

void Seq2SeqDock::deliver(const Seq2SeqInput& input, const Seq2SeqOutcome& outcome) {
    showOutcome(outcome);
    remember(outcome.data);
    attn::SceneSpec spec = seq2seqSpec(scene_->spec(), outcome);
    spec.text = input.source;
    // The run's scaling, which the controls show (greyed: its weights cannot be rescaled).
    spec.scale = attn::model::scales_scores(folder_->model->info(), input.options.controls);
    record(input, outcome);
    scene_->setSpec(spec, outcome.translated ? tr("Translate") : tr("Run the translation model"));
}

void Seq2SeqDock::record(const Seq2SeqInput& input, const Seq2SeqOutcome& outcome) {
    // What the Influence tab explains and a session saves while the scene shows this run: its
    // input as it reruns, a translation's text and ids in place of the request to translate.
    Seq2SeqInput rerun = input;
    if (outcome.translated) {
        rerun.translate = false;
        rerun.target = outcome.text;
        rerun.targetIds = outcome.output;
    }
    Seq2SeqShown::of(scene_)->set(
        {folder_, outcome.data, outcome.sourceIds, outcome.decoderIds, std::move(rerun)});
}

void Seq2SeqDock::showOutcome(const Seq2SeqOutcome& outcome) {
    if (outcome.translated) {  // the target box holds the translation, its ids kept
        const QSignalBlocker block(target_);
        translatedText_ = QString::fromStdString(outcome.text);
        translation_ = outcome.output;
        target_->setText(translatedText_);
        target_->setCursorPosition(0);
    }
    const QString tokens = tr("%1 source × %2 target tokens (the start token first)")
                               .arg(outcome.sourceIds.size())
                               .arg(outcome.decoderIds.size());
    if (!outcome.translated)
        setStatus(tr("Teacher-forced on the typed target: %1.").arg(tokens));
    else  // </s> alone leaves the target box empty: said, or Translate looks broken
        setStatus((!outcome.finished ? tr("Translated: stopped at %1 tokens (max tokens); %2.")
                   : outcome.output.size() > 1
                       ? tr("Translated: %1 tokens, ending with </s>; %2.")
                       : tr("Translated: the model ended at once (%1 token, </s>): an empty "
                            "translation; %2."))
                      .arg(outcome.output.size())
                      .arg(tokens));
}

void Seq2SeqDock::setStatus(const QString& text, bool error) {
    // The end token whole: a wrapped line must not break it after its slash.
    status_->setText(
        QString(text).replace(QStringLiteral("</s>"), unbrokenText(QStringLiteral("</s>"))));
    status_->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
    fitRows();  // a longer message must not fall below the dock's edge
}

void Seq2SeqDock::sync() {
    const attn::SceneSpec& spec = scene_->spec();
    const bool mine = folder_ && spec.is_loaded() && spec.data->source == folder_->dir;
    TabDocks::setAvailable(this, mine);
    // Undo or redo to another run: its sentences come back (typing is never overwritten, since
    // only a change of the run shown restores them).
    if (!mine || spec.data.get() == lastData_) return;
    lastData_ = spec.data.get();
    for (const Shown& s : shown_)
        if (s.data.lock() == spec.data) {
            const QSignalBlocker b1(source_), b2(target_);
            source_->setText(s.source);
            target_->setText(s.target);
            translation_ = s.translation;
            translatedText_ = s.translation.empty() ? QString() : s.target;
            source_->setCursorPosition(0);
            target_->setCursorPosition(0);
        }
}

}  // namespace fileio
