// AttnScope — the sentence being attended over; the scene follows as you type.
// GPL-3.0-or-later.
#pragma once

#include <QWidget>

class Scene;
namespace attn {
struct AttentionComponent;
struct SceneSpec;
}  // namespace attn
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTimer;

/// A text box for the sentence (typed or pasted) with a preview of its tokens. Edits reach the
/// Scene after a short pause (debounced) as one undo step per burst of typing. While loaded
/// attention is shown, it shows the file's tokens instead, read-only.
class TokenEditor : public QWidget {
    Q_OBJECT
  public:
    explicit TokenEditor(Scene* scene, QWidget* parent = nullptr);

    QPlainTextEdit* editor() const { return edit_; }
    /// The second sentence: non-empty, its tokens are the keys (cross-attention).
    QLineEdit* crossEditor() const { return cross_; }
    /// Milliseconds of quiet typing before the scene follows.
    void setDebounce(int milliseconds);
    /// Applies pending typing now (tests, and before saving).
    void flush();

  private:
    static QString editableTip(const attn::SceneSpec& spec);
    void syncFromScene();
    void showLoadedTokens(const attn::AttentionComponent& component, const QString& source);
    void apply();
    void applyCross();
    void updatePreview();

    Scene* scene_;
    QPlainTextEdit* edit_ = nullptr;
    QLabel* preview_ = nullptr;
    QLineEdit* cross_ = nullptr;
    QWidget* crossRow_ = nullptr;
    QTimer* debounce_ = nullptr;
};
