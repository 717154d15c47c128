// AttnScope — the Generate section's text: the end note, a step shown, the shaded tokens.
// GPL-3.0-or-later.
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

#include "attn/scene/model_scene.hpp"
#include "io/generate_panel.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"
#include "views/shown_text.hpp"

namespace fileio {

namespace {

/// A token as rich text: HTML-escaped, a space shown as a middle dot's width of space, isolated
/// (a right-to-left token keeps the tokens around it in order).
QString tokenHtml(const std::string& token) {
    QString t = QString::fromStdString(token).toHtmlEscaped();
    t.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    return isolatedText(t.isEmpty() ? QStringLiteral("∅") : t);
}

}  // namespace

QString GeneratePanel::endNote() const {
    const int made = int(shown_.choices.size());
    switch (end_) {
        case End::Running:
            return {};
        case End::Done:
            // Fewer tokens than asked: why the generation ended there.
            if (reason_ == attn::gen::StopReason::Positions && model_)
                return tr("%n token(s) generated: the text fills the model's %1 positions", "",
                          made)
                    .arg(model_->model->info().max_positions);
            if (reason_ == attn::gen::StopReason::Eos)
                return tr(
                    "%n token(s) generated: the model ended the text (its end-of-text "
                    "token)",
                    "", made);
            return tr("%n token(s) generated", "", made);
        case End::Stopped:
            return tr("Stopped: generation cancelled after %n token(s)", "", made);
        case End::Failed:
            return error_;
    }
    return {};
}

void GeneratePanel::showStep(int step) {
    if (!model_ || step < 0 || step >= int(shown_.choices.size())) return;
    const attn::gen::Choice& c = shown_.choices[std::size_t(step)];
    const std::vector<std::int32_t> ids(
        shown_.ids.begin(), shown_.ids.begin() + std::ptrdiff_t(shown_.prompt) + step + 1);
    // The sentence up to this token: the sentence box and every view show the step. The scene
    // runs these very ids: encoding their text again may split it otherwise (" a" + "b" → "ab").
    attn::SceneSpec spec = scene_->spec();
    const std::string text = model_->tokenizer->decode(ids);
    if (spec.model == model_ && (spec.text != text || spec.model_ids != ids)) {
        spec.text = text;
        spec.tokens.clear();
        spec.model_ids = ids;
        scene_->setSpec(spec, tr("Generate"), kGenerateControl);
    }
    const attn::model::Tokenizer& tok = *model_->tokenizer;
    if (!running_)
        status_->setText((end_ == End::Running ? QString() : endNote() + QStringLiteral("\n")) +
                         tr("Step %1 of %2: %3, log p = %4; %5 token(s) kept by top-k/top-p")
                             .arg(step + 1)
                             .arg(shown_.choices.size())
                             .arg(quotedToken(QString::fromStdString(tok.token_text(c.id))))
                             .arg(double(c.logprob), 0, 'f', 3)
                             .arg(c.kept));
    candidates_->clear();
    for (const attn::gen::Candidate& k : c.top) {
        auto* item = new QListWidgetItem(
            tr("%1  %2  (model %3)%4")
                .arg(quotedToken(QString::fromStdString(tok.token_text(k.id))),
                     percentText(double(k.probability)), percentText(std::exp(double(k.logprob))),
                     k.kept ? QString() : tr("  — cut")));
        if (!k.kept) item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
        if (k.id == c.id) {
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
        candidates_->addItem(item);
    }
}

void GeneratePanel::renderText() {
    if (!model_ || shown_.ids.empty()) {
        text_->clear();
        return;
    }
    const std::vector<std::string> labels = model_->tokenizer->display_tokens(shown_.ids);
    QString html;
    for (std::size_t i = 0; i < shown_.ids.size(); ++i) {
        // The tokens view's ink, as opaque as the token was probable (the first: unpredicted).
        const double lp = i < shown_.logprobs.size() ? double(shown_.logprobs[i]) : NAN;
        const double alpha = std::isfinite(lp) ? 0.85 * std::exp(lp) : 0.0;
        const QString style = QStringLiteral("background-color: rgba(31,119,180,%1);%2")
                                  .arg(int(alpha * 255))
                                  .arg(alpha > 0.5 ? QStringLiteral(" color: white;") : QString());
        QString token = tokenHtml(labels[i]);
        if (i >= shown_.prompt) token = QStringLiteral("<u>") + token + QStringLiteral("</u>");
        // A zero-width space between tokens: the line may break there (spaces are &nbsp;).
        html += QStringLiteral("<span style=\"%1\">%2</span>&#8203;").arg(style, token);
    }
    text_->setText(html);
}

}  // namespace fileio
