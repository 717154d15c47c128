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

#include "attn/model/model_scene.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/cell_map.hpp"
#include "views/token_pick.hpp"

const QString PatchingView::kJob = QStringLiteral("patching");

namespace {
struct PatchDelivery {
    attn::interv::PatchResult result;
    attn::interv::PatchSpec spec;
    QStringList tokens;
};

QString fractionTip(const QString& where, double v) {
    return QCoreApplication::translate("PatchingView", "%1: %2 of the logit difference restored")
        .arg(where)
        .arg(v, 0, 'f', 3);
}
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
    for (CellMap* m : {heads_, resid_}) {
        m->setScale(CellMap::Scale::Diverging);
        m->setLimit(1.0);
        m->setShowValues(true);
    }
    heads_->setAxisNames(tr("layer"), tr("head"));
    heads_->setTitle(tr("Each head's output patched (fraction restored)"));
    resid_->setAxisNames(tr("residual stream"), tr("position (token)"));
    resid_->setTitle(tr("Residual stream patched at one position"));
    heads_->setTip([this](int r, int c) {
        return fractionTip(tr("Layer %1, head %2").arg(r + 1).arg(c + 1),
                           double(result_.heads(r, c)));
    });
    resid_->setTip([this](int r, int c) {
        return fractionTip(tr("%1, position %2 “%3”")
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
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addLayout(form);
    column->addWidget(progress_);
    column->addWidget(status_);
    column->addLayout(maps, 1);
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
    QStringList tokens;
    for (const std::string& t : tok.display_tokens(ps.clean))
        tokens << visibleToken(QString::fromStdString(t));
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
        [ps, folder, tokens](attn::Progress& progress) {
            PatchDelivery d;
            d.result = attn::interv::patch(*folder->model, ps, &progress);
            d.spec = ps;
            d.tokens = tokens;
            return d;
        },
        [this](PatchDelivery d) {
            display(std::move(d.result), std::move(d.spec), std::move(d.tokens));
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

void PatchingView::display(attn::interv::PatchResult result, attn::interv::PatchSpec spec,
                           QStringList tokens) {
    result_ = std::move(result);
    shown_ = std::move(spec);
    shownModel_ = jobModel_;
    shownText_ = jobText_;
    const int layers = int(result_.heads.rows()), heads = int(result_.heads.cols());
    QStringList rows, cols;
    for (int l = 1; l <= layers; ++l)
        rows << QString::number(l);
    for (int h = 1; h <= heads; ++h)
        cols << QString::number(h);
    heads_->setData(result_.heads, rows, cols);
    resid_->setData(result_.resid, streamRowLabels(layers), tokens);
    progress_->setValue(1000);
    ended(tr("Logit difference (answer − wrong): clean %1, corrupted %2. Each cell: (patched − "
             "corrupted) / (clean − corrupted).")
              .arg(result_.clean_diff, 0, 'f', 4)
              .arg(result_.corrupt_diff, 0, 'f', 4));
}
