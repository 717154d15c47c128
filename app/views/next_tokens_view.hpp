// AttnScope — a model's next-token prediction: the likeliest tokens with their probabilities.
// GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <vector>

#include "attn/scene/scene.hpp"

/// One row per candidate token: the token (quoted, so GPT-2's leading space shows), a bar as
/// long as its probability and the probability in percent. Draws only.
class NextTokensView : public QWidget {
    Q_OBJECT
  public:
    explicit NextTokensView(QWidget* parent = nullptr);

    /// Shows tokens (likeliest first); an empty list shows the placeholder text.
    void setTokens(std::vector<attn::NextToken> tokens);
    const std::vector<attn::NextToken>& tokens() const { return tokens_; }
    /// The text of row i as drawn: “token”  12.3 % (tests, accessibility).
    QString rowText(int i) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    int rowHeight() const;
    std::vector<attn::NextToken> tokens_;
};
