// AttnScope — the sentence being attended over; the scene follows as you type.
// GPL-3.0-or-later.
#include "widgets/token_editor.hpp"

#include <QLabel>
#include <QPlainTextEdit>
#include <QTimer>
#include <QVBoxLayout>

#include "model/scene.hpp"
#include "model/spec_edit.hpp"
#include "widgets/control_ids.hpp"

namespace {

QString specText(const attn::SceneSpec& s) {
    if (s.tokens.empty()) return QString::fromStdString(s.text);
    QStringList parts;
    for (const std::string& t : s.tokens)
        parts << QString::fromStdString(t);
    return parts.join(QLatin1Char(' '));
}

}  // namespace

TokenEditor::TokenEditor(Scene* scene, QWidget* parent) : QWidget(parent), scene_(scene) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(2);
    edit_ = new QPlainTextEdit;
    edit_->setObjectName(QStringLiteral("sentenceEdit"));
    edit_->setPlaceholderText(tr("Type or paste a sentence…"));
    edit_->setToolTip(
        tr("The sentence attended over; the heatmaps follow as you type. Words and "
           "punctuation marks become tokens."));
    edit_->setTabChangesFocus(true);
    const int line = edit_->fontMetrics().lineSpacing();
    edit_->setFixedHeight(line * 2 + 14);
    preview_ = new QLabel;
    preview_->setTextFormat(Qt::PlainText);
    preview_->setToolTip(tr("How the sentence is split into tokens"));
    preview_->setMinimumWidth(50);
    preview_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(edit_);
    layout->addWidget(preview_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(300);
    connect(debounce_, &QTimer::timeout, this, &TokenEditor::apply);
    connect(edit_, &QPlainTextEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(edit_, &QPlainTextEdit::textChanged, this, &TokenEditor::updatePreview);
    connect(scene_, &Scene::specChanged, this, &TokenEditor::syncFromScene);
    syncFromScene();
}

void TokenEditor::setDebounce(int milliseconds) {
    debounce_->setInterval(milliseconds);
}

void TokenEditor::flush() {
    if (!debounce_->isActive()) return;
    debounce_->stop();
    apply();
}

void TokenEditor::apply() {
    const std::string text = edit_->toPlainText().toStdString();
    const attn::SceneSpec& s = scene_->spec();
    if (s.tokens.empty() && s.text == text) return;
    scene_->setSpec(withText(s, text), tr("Edit sentence"), kTextControl);
}

void TokenEditor::syncFromScene() {
    // Never overwrite what the user is typing; their text reaches the scene shortly.
    if (debounce_->isActive()) return;
    const QString text = specText(scene_->spec());
    if (edit_->toPlainText() == text) return;
    const QSignalBlocker block(edit_);
    edit_->setPlainText(text);
    edit_->moveCursor(QTextCursor::End);
    updatePreview();
}

void TokenEditor::updatePreview() {
    std::vector<std::string> tokens;
    try {
        tokens = attn::tokenize(edit_->toPlainText().toStdString());
    } catch (const std::exception& e) {
        preview_->setText(QString::fromUtf8(e.what()));
        return;
    }
    QStringList parts;
    for (const std::string& t : tokens)
        parts << QString::fromStdString(t);
    const QString full =
        tr("%n token(s): ", nullptr, int(tokens.size())) + parts.join(QStringLiteral(" · "));
    preview_->setText(
        preview_->fontMetrics().elidedText(full, Qt::ElideRight, std::max(50, preview_->width())));
    preview_->setToolTip(full);
}
