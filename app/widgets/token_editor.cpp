// AttnScope — the sentence being attended over; the scene follows as you type.
// GPL-3.0-or-later.
#include "widgets/token_editor.hpp"

#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTimer>
#include <QVBoxLayout>

#include "attn/models/hf_cache.hpp"
#include "attn/models/model.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/scene/spec_edit.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"
#include "views/shown_text.hpp"
#include "views/token_labels.hpp"
#include "widgets/undo_shortcuts.hpp"

namespace {

QString specText(const attn::SceneSpec& s) {
    if (s.tokens.empty()) return QString::fromStdString(s.text);
    QStringList parts;
    for (const std::string& t : s.tokens)
        parts << QString::fromStdString(t);
    return parts.join(QLatin1Char(' '));
}

QStringList qtTokens(const std::vector<std::string>& tokens) {
    QStringList out;
    for (const std::string& t : tokens)
        out << tokenText(t);  // whitespace tokens as visible symbols
    return out;
}

}  // namespace

TokenEditor::TokenEditor(Scene* scene, QWidget* parent) : QWidget(parent), scene_(scene) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(2);
    edit_ = new QPlainTextEdit;
    edit_->setObjectName(QStringLiteral("sentenceEdit"));
    edit_->setPlaceholderText(tr("Type or paste a sentence…"));
    edit_->setToolTip(editableTip(scene_->spec()));
    edit_->setTabChangesFocus(true);
    // Ctrl+Z here undoes the scene (each burst of typing is a step), as in every control.
    edit_->setProperty(UndoShortcutRouter::kSceneUndoProperty, true);
    const int line = edit_->fontMetrics().lineSpacing();
    edit_->setFixedHeight(line * 2 + 14);
    preview_ = new QLabel;
    preview_->setTextFormat(Qt::PlainText);
    preview_->setToolTip(tr("How the sentence is split into tokens"));
    preview_->setMinimumWidth(50);
    preview_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    cross_ = new QLineEdit;
    cross_->setObjectName(QStringLiteral("crossEdit"));
    cross_->setPlaceholderText(
        tr("empty: self-attention · a second sentence: cross-attention, "
           "its tokens are the keys"));
    cross_->setToolTip(
        tr("Keys and values from this sentence (e.g. the source of a "
           "translation) while the queries come from the first: rectangular "
           "cross-attention. Applies when you press Enter or leave the field."));
    crossRow_ = new QWidget;
    auto* crossLayout = new QHBoxLayout(crossRow_);
    crossLayout->setContentsMargins(0, 0, 0, 0);
    auto* crossLabel = new QLabel(tr("Keys from:"));
    crossLabel->setBuddy(cross_);
    crossLayout->addWidget(crossLabel);
    crossLayout->addWidget(cross_, 1);
    layout->addWidget(edit_);
    layout->addWidget(preview_);
    layout->addWidget(crossRow_);
    connect(cross_, &QLineEdit::editingFinished, this, &TokenEditor::applyCross);

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
    scene_->setSpec(attn::with_text(s, text), tr("Edit sentence"), kTextControl);
}

void TokenEditor::applyCross() {
    cross_->setModified(false);
    const std::string text = cross_->text().trimmed().toStdString();
    attn::SceneSpec s = scene_->spec();
    if (!s.is_synthetic() || s.cross_text == text) return;
    s.cross_text = text;
    scene_->setSpec(s, text.empty() ? tr("Self-attention") : tr("Cross-attention sentence"));
}

QString TokenEditor::editableTip(const attn::SceneSpec& spec) {
    if (spec.is_model())
        return tr("The sentence the model reads; the heatmaps follow as you type. The model's "
                  "own tokenizer (%1, a vocabulary of %2 tokens) splits it into sub-word "
                  "pieces, listed below: a word may become several pieces.")
            .arg(QString::fromStdString(spec.model->model->info().display))
            .arg(spec.model->tokenizer->vocab_size());
    return tr(
        "The sentence attended over; the heatmaps follow as you type. Words and "
        "punctuation marks become tokens.");
}

void TokenEditor::syncFromScene() {
    // Never overwrite what the user is typing; their text reaches the scene shortly.
    if (debounce_->isActive()) return;
    const attn::SceneSpec& spec = scene_->spec();
    // Loaded attention brings its own keys: the second sentence has nothing to change.
    crossRow_->setVisible(spec.is_synthetic());
    if (!cross_->isModified()) {  // never overwrite what is being typed
        const QSignalBlocker block(cross_);
        cross_->setText(QString::fromStdString(spec.cross_text));
    }
    if (const attn::AttentionComponent* c = attn::shown_component(spec)) {
        showLoadedTokens(*c, QString::fromStdString(spec.data->source));
        return;
    }
    if (edit_->isReadOnly()) {
        edit_->setReadOnly(false);
        edit_->setPalette(QPalette());  // editable again: the normal text-field look
        edit_->setPlaceholderText(tr("Type or paste a sentence…"));
    }
    edit_->setToolTip(editableTip(spec));
    const QString text = specText(spec);
    if (edit_->toPlainText() == text) {
        updatePreview();  // the same sentence, perhaps another model's tokenizer
        return;
    }
    const QSignalBlocker block(edit_);
    edit_->setPlainText(text);
    edit_->moveCursor(QTextCursor::End);
    updatePreview();
}

void TokenEditor::showLoadedTokens(const attn::AttentionComponent& c, const QString& source) {
    // The loaded file's attention ignores the sentence, so the box shows the file's own tokens
    // and cannot be typed in (typing would change nothing on screen).
    // A snapshot of a Hugging Face cache by its repository's name, a file by its own.
    const QString file = QFile::decodeName(QByteArray::fromStdString(
        attn::model::model_name(QFile::encodeName(source).toStdString())));
    const QStringList q = qtTokens(c.q_tokens), k = qtTokens(c.k_tokens);
    QStringList words;
    for (const QString& t : q)
        words << t.trimmed();
    const QSignalBlocker block(edit_);
    edit_->setReadOnly(true);
    // Visibly read-only: the window's colour behind the text instead of a field's.
    QPalette greyed = edit_->palette();
    greyed.setColor(QPalette::Base, palette().color(QPalette::Window));
    greyed.setColor(QPalette::Text, palette().color(QPalette::Disabled, QPalette::Text));
    edit_->setPalette(greyed);
    edit_->setPlainText(words.join(QLatin1Char(' ')));
    edit_->setToolTip(tr("The tokens of %1, as loaded: its attention comes from the file, so "
                         "the sentence cannot change it. Undo or open another file to leave it.")
                          .arg(file));
    const QString full =
        tr("Read-only — ") +
        (q == k ? tr("%n token(s) from %1: ", nullptr, int(q.size())).arg(file) +
                      q.join(QStringLiteral(" · "))
                : tr("%n query token(s) from %1: ", nullptr, int(q.size())).arg(file) +
                      q.join(QStringLiteral(" · ")) +
                      tr(";  %n key token(s): ", nullptr, int(k.size())) +
                      k.join(QStringLiteral(" · ")));
    preview_->setText(
        preview_->fontMetrics().elidedText(full, Qt::ElideRight, std::max(50, preview_->width())));
    preview_->setToolTip(full);
}

void TokenEditor::updatePreview() {
    if (edit_->isReadOnly()) return;  // loaded tokens: showLoadedTokens wrote the preview
    std::vector<std::string> tokens;
    bool more = false;  // a model's text longer than its positions: only those are listed
    try {
        // The scene's own tokenizer: GPT-2's pieces while a model runs, words otherwise.
        attn::SceneSpec s = scene_->spec();
        s.text = edit_->toPlainText().toStdString();
        s.tokens.clear();
        tokens = s.query_tokens();
        if (s.is_model()) s.run_ids(std::size_t(s.model->model->info().max_positions), &more);
    } catch (const std::exception& e) {
        preview_->setText(QString::fromUtf8(e.what()));
        return;
    }
    QStringList parts;
    for (const std::string& t : tokens)
        parts << isolatedText(tokenText(t));  // GPT-2's leading spaces as visible symbols
    const QString head =
        more ? tr("The first %1 tokens (the text has more than the model's %1 positions): ")
                   .arg(tokens.size())
             : tr("%n token(s): ", nullptr, int(tokens.size()));
    const QString full = head + parts.join(QStringLiteral(" · "));
    preview_->setText(
        preview_->fontMetrics().elidedText(full, Qt::ElideRight, std::max(50, preview_->width())));
    preview_->setToolTip(full);
}
