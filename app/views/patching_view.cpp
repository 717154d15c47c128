// AttnScope — the activation patching view. GPL-3.0-or-later.
#include "views/patching_view.hpp"

#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <exception>

#include "attn/scene/model_scene.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/cell_map.hpp"
#include "views/screen_only.hpp"
#include "views/token_pick.hpp"

const QString PatchingView::kJob = QStringLiteral("patching");

namespace {
struct PatchDelivery {
    attn::interv::PatchResult result;
    attn::interv::PatchSpec spec;
    PatchInputs inputs;
};
}  // namespace

PatchingView::PatchingView(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      clean_(new QLabel),
      corrupt_(new QLineEdit),
      answer_(new QLineEdit),
      wrong_(new QLineEdit),
      run_(new QPushButton(tr("&Run patching"))),
      stop_(new QPushButton(tr("Sto&p"))),
      progress_(new QProgressBar),
      status_(new QLabel),
      figure_(new QWidget),
      caption_(new QLabel),
      warning_(new QLabel),
      heads_(new CellMap),
      resid_(new CellMap),
      poll_(new QTimer(this)) {
    setObjectName(QStringLiteral("patchingView"));
    corrupt_->setObjectName(QStringLiteral("patchCorrupt"));
    answer_->setObjectName(QStringLiteral("patchAnswer"));
    wrong_->setObjectName(QStringLiteral("patchWrong"));
    heads_->setObjectName(QStringLiteral("patchHeadMap"));
    resid_->setObjectName(QStringLiteral("patchResidMap"));
    clean_->setTextFormat(Qt::PlainText);
    clean_->setWordWrap(true);
    corrupt_->setPlaceholderText(tr("the sentence with the fact changed, same token length"));
    answer_->setPlaceholderText(tr("text or id"));
    wrong_->setPlaceholderText(tr("text or id"));
    answer_->setToolTip(tr("The clean run's answer: a token's text or its id"));
    wrong_->setToolTip(tr("The corrupted run's answer: a token's text or its id"));
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    progress_->setMaximumHeight(12);
    status_->setWordWrap(true);
    status_->setObjectName(QStringLiteral("patchStatus"));
    // ±1 (all of the difference restored, or reversed) at least, wider when a value is: a
    // fraction of 2.7 is never drawn as if it were 1.
    for (CellMap* m : {heads_, resid_}) {
        m->setScale(CellMap::Scale::Diverging);
        m->setRangeFloor(1.0);
        m->setKeyMarks({-1.0, 0.0, 1.0});
        m->setShowValues(true);
    }
    figure_->setObjectName(QStringLiteral("patchFigure"));
    figure_->setProperty(kFigureProperty, true);
    caption_->setObjectName(QStringLiteral("patchCaption"));
    caption_->setTextFormat(Qt::PlainText);
    caption_->setWordWrap(true);
    warning_->setObjectName(QStringLiteral("patchWarning"));
    warning_->setTextFormat(Qt::PlainText);
    warning_->setWordWrap(true);
    warning_->setStyleSheet(QStringLiteral("color: #b2182b; font-weight: bold;"));
    warning_->hide();
    heads_->setAxisNames(tr("layer"), tr("head"));
    heads_->setTitle(tr("Each head's output patched (fraction restored)"));
    resid_->setAxisNames(tr("residual stream"), tr("position (token)"));
    resid_->setTitle(tr("Residual stream patched at one position"));
    heads_->setTip([this](int r, int c) {
        return cellTip(tr("Layer %1, head %2").arg(r + 1).arg(c + 1), double(result_.heads(r, c)));
    });
    resid_->setTip([this](int r, int c) {
        return cellTip(tr("%1, position %2 “%3”")
                           .arg(resid_->rowLabels().value(r))
                           .arg(c + 1)
                           .arg(resid_->columnLabels().value(c)),
                       double(result_.resid(r, c)));
    });

    auto* form = new QFormLayout;
    form->addRow(tr("Clean:"), clean_);
    form->addRow(tr("&Corrupted:"), corrupt_);
    auto* answers = new QHBoxLayout;
    answers->addWidget(new QLabel(tr("&Answer:")));
    answers->addWidget(answer_, 1);
    answers->addSpacing(8);
    answers->addWidget(new QLabel(tr("&Wrong:")));
    answers->addWidget(wrong_, 1);
    answers->addSpacing(8);
    answers->addWidget(run_);
    answers->addWidget(stop_);
    static_cast<QLabel*>(answers->itemAt(0)->widget())->setBuddy(answer_);
    static_cast<QLabel*>(answers->itemAt(3)->widget())->setBuddy(wrong_);
    form->addRow(answers);
    auto* maps = new QHBoxLayout;
    maps->addWidget(heads_, 2);
    maps->addWidget(resid_, 3);
    auto* figure = new QVBoxLayout(figure_);
    figure->setContentsMargins(0, 0, 0, 0);
    figure->addWidget(caption_);
    figure->addWidget(warning_);
    figure->addLayout(maps, 1);
    caption_->hide();
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addLayout(form);
    column->addWidget(progress_);
    column->addWidget(status_);
    column->addWidget(figure_, 1);
    stop_->setEnabled(false);
    poll_->setInterval(100);
    connect(poll_, &QTimer::timeout, this, [this] {
        if (job_) progress_->setValue(int(1000 * job_->fraction()));
    });
    connect(run_, &QPushButton::clicked, this, &PatchingView::start);
    connect(stop_, &QPushButton::clicked, this, &PatchingView::stop);
    for (QLineEdit* e : {corrupt_, answer_, wrong_})
        connect(e, &QLineEdit::returnPressed, this, &PatchingView::start);
    connect(scene_, &Scene::specChanged, this, &PatchingView::syncClean);
    message_ =
        tr("Type a corrupted prompt of the same token length and the two answers, "
           "then Run: 1 = the patch restores the clean answer, 0 = no change.");
    syncClean();
}

PatchingView::~PatchingView() {
    Scheduler::instance().cancelAndWait(this);
}

void PatchingView::syncClean() {
    const attn::SceneSpec& spec = scene_->spec();
    clean_->setText(spec.is_model() ? QString::fromStdString(spec.text) : QString());
    // Another model (or none): a run still going and the maps on show are the previous one's.
    if (spec.model != jobModel_ && running_) {
        Scheduler::instance().cancel(this, kJob);
        running_ = false;
        poll_->stop();
        job_.reset();
        stop_->setEnabled(false);
        message_ = tr("Stopped: the model changed. Run patching for this one.");
        Q_EMIT finished();
    }
    if (spec.model != shownModel_ && shownModel_) {
        result_ = {};
        shown_ = {};
        shownModel_.reset();
        heads_->clear();
        resid_->clear();
        progress_->setValue(0);
        message_ = tr("The maps were of another model: Run patching for this one.");
    }
    run_->setEnabled(spec.is_model() && !running_);
    if (!running_) status_->setText(message_ + staleNote());
}

QString PatchingView::staleNote() const {
    const attn::SceneSpec& spec = scene_->spec();
    if (!shownModel_ ||
        (spec.text == shownText_ && attn::model::run_controls(spec) == shown_.controls))
        return {};
    return tr("\nOut of date: the maps are of the clean prompt “%1” and the controls then in "
              "effect; Run again for the scene on show.")
        .arg(QString::fromStdString(shownText_));
}

bool PatchingView::start() {
    const attn::SceneSpec spec = scene_->spec();
    if (running_ || !spec.is_model()) return false;
    const auto folder = spec.model;
    const attn::model::Tokenizer& tok = *folder->tokenizer;
    const int vocab = folder->model->info().vocab;
    attn::interv::PatchSpec ps;
    QString error;
    try {
        ps.clean = tok.encode(spec.text);
        ps.corrupt = tok.encode(corrupt_->text().toStdString());
    } catch (const std::exception&) {
        error = tr("The prompts must be valid UTF-8 text");
    }
    if (error.isEmpty() && corrupt_->text().isEmpty()) error = tr("Type the corrupted prompt");
    if (error.isEmpty() && ps.clean.size() != ps.corrupt.size())
        error = tr("The clean prompt is %1 tokens and the corrupted one %2: patching needs "
                   "prompts of equal token length")
                    .arg(ps.clean.size())
                    .arg(ps.corrupt.size());
    std::optional<std::int32_t> answer, wrong;
    if (error.isEmpty()) answer = pickToken(tok, vocab, answer_->text(), &error);
    if (error.isEmpty()) wrong = pickToken(tok, vocab, wrong_->text(), &error);
    if (!error.isEmpty()) {
        message_ = error;
        status_->setText(message_ + staleNote());
        return false;
    }
    ps.answer = *answer;
    ps.wrong = *wrong;
    ps.controls = attn::model::run_controls(spec);
    PatchInputs inputs;
    inputs.clean = QString::fromStdString(spec.text);
    inputs.corrupt = corrupt_->text();
    inputs.answer = tokenName(tok, ps.answer);
    inputs.wrong = tokenName(tok, ps.wrong);
    inputs.answerText = QString::fromStdString(tok.token_text(ps.answer));
    inputs.wrongText = QString::fromStdString(tok.token_text(ps.wrong));
    for (const std::string& t : tok.display_tokens(ps.clean))
        inputs.tokens << visibleToken(QString::fromStdString(t));
    for (const std::string& t : tok.display_tokens(ps.corrupt))
        inputs.corruptTokens << visibleToken(QString::fromStdString(t));
    for (std::size_t i = 0; i < ps.clean.size(); ++i)
        if (ps.clean[i] != ps.corrupt[i]) inputs.differing.push_back(int(i));
    running_ = true;
    jobModel_ = folder;
    jobText_ = spec.text;
    run_->setEnabled(false);
    stop_->setEnabled(true);
    progress_->setValue(0);
    status_->setText(tr("Patching %1 heads and %2 residual places…")
                         .arg(folder->model->info().layers * folder->model->info().heads)
                         .arg((folder->model->info().layers + 1) * int(ps.clean.size())));
    job_ = Scheduler::instance().run(
        this, kJob,
        [ps, folder, inputs](attn::Progress& progress) {
            PatchDelivery d;
            d.result = attn::interv::patch(*folder->model, ps, &progress);
            d.spec = ps;
            d.inputs = inputs;
            return d;
        },
        [this](PatchDelivery d) {
            display(std::move(d.result), std::move(d.spec), std::move(d.inputs));
        },
        [this](const QString& message) { ended(message); });
    poll_->start();
    return true;
}

void PatchingView::stop() {
    if (!running_) return;
    Scheduler::instance().cancel(this, kJob);
    ended(tr("Stopped; the maps show the last finished patching"));
}

void PatchingView::ended(const QString& message) {
    running_ = false;
    poll_->stop();
    job_.reset();
    stop_->setEnabled(false);
    message_ = message;
    syncClean();
    Q_EMIT finished();
}

QString PatchingView::cellTip(const QString& where, double fraction) const {
    const double span = result_.clean_diff - result_.corrupt_diff;
    return tr("%1: %2 of the logit difference restored (patched run %3; clean %4, corrupted %5)")
        .arg(where)
        .arg(fraction, 0, 'f', 4)
        .arg(result_.corrupt_diff + fraction * span, 0, 'f', 4)
        .arg(result_.clean_diff, 0, 'f', 4)
        .arg(result_.corrupt_diff, 0, 'f', 4);
}

void PatchingView::display(attn::interv::PatchResult result, attn::interv::PatchSpec spec,
                           PatchInputs inputs) {
    result_ = std::move(result);
    shown_ = std::move(spec);
    inputs_ = std::move(inputs);
    shownModel_ = jobModel_;
    shownText_ = jobText_;
    const int layers = int(result_.heads.rows()), heads = int(result_.heads.cols());
    QStringList rows, cols;
    for (int l = 1; l <= layers; ++l)
        rows << QString::number(l);
    for (int h = 1; h <= heads; ++h)
        cols << QString::number(h);
    heads_->setData(result_.heads, rows, cols);
    resid_->setData(result_.resid, streamRowLabels(layers), inputs_.tokens);
    resid_->setEmphasisedColumns(inputs_.differing);
    QStringList changed;
    for (int p : inputs_.differing)
        changed << tr("“%1” → “%2”").arg(inputs_.tokens.value(p), inputs_.corruptTokens.value(p));
    const double span = result_.clean_diff - result_.corrupt_diff;
    caption_->setText(
        tr("Clean “%1”, corrupted “%2” (%3, in bold below). Answer %4 − wrong %5: logit "
           "difference clean %6, corrupted %7 (clean − corrupted %8). Each cell: (patched − "
           "corrupted) / (clean − corrupted); 1 restores the clean answer, 0 changes nothing.")
            .arg(inputs_.clean, inputs_.corrupt,
                 changed.isEmpty() ? tr("the same tokens") : changed.join(QStringLiteral(", ")),
                 inputs_.answer, inputs_.wrong)
            .arg(result_.clean_diff, 0, 'f', 4)
            .arg(result_.corrupt_diff, 0, 'f', 4)
            .arg(span, 0, 'f', 4));
    caption_->show();
    warning_->setVisible(result_.unstable());
    warning_->setText(
        tr("Unstable: clean − corrupted is %1, under %2 % of the spread of the logits (their "
           "standard deviation %3), so a patched run that moves the difference by a few "
           "hundredths reads as a large fraction. Pick answers the two prompts separate more.")
            .arg(span, 0, 'f', 4)
            .arg(100.0 * attn::interv::kUnstableSpanFraction, 0, 'g', 3)
            .arg(result_.logit_scale, 0, 'f', 4));
    progress_->setValue(1000);
    ended(result_.unstable() ? tr("Patched; the result is unstable (see the warning above the "
                                  "maps)")
                             : tr("Patched %1 heads and %2 residual places")
                                   .arg(result_.heads.size())
                                   .arg(result_.resid.size()));
}
