// AttnScope — BertViz's head view: two token columns joined by lines whose opacity is the weight.
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "views/attention_view.hpp"

/// Queries on the left, keys on the right, one colour per head and the heads overlaid; a
/// head's swatch toggles it. Hovering a token shows only its lines; with queries selected, only
/// theirs, and the keys are shaded by the selection's combined (sum or mean) weight. Works for
/// rectangular cross-attention. Its height grows with the tokens (put it in a scroll area).
class LinesView : public AttentionView {
    Q_OBJECT
  public:
    explicit LinesView(QWidget* parent = nullptr);

    /// One drawn line.
    struct Line {
        int head, query, key;  ///< shown rows/columns (head −1: the mean/max of all heads)
        float weight;
    };
    /// The lines drawn now (weights under kMinWeight are not drawn).
    std::vector<Line> visibleLines() const;
    static constexpr float kMinWeight = 0.01f;

    bool headVisible(int head) const;
    void setHeadVisible(int head, bool visible);
    QRect swatchRect(int head) const;
    /// The title (bold, painted in titleRect): what the lines show.
    QString title() const;
    QRect titleRect() const;
    QRect queryRect(int row) const;
    QRect keyRect(int column) const;
    /// With several keys selected: the sum or mean of the selected queries' weights on them.
    QString keysSummary() const;
    /// The query row or key column hovered (−1: none).
    int hoveredQuery() const { return hoverQuery_; }
    int hoveredKey() const { return hoverKey_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void rebuild() override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    int rows() const;
    int columnWidth() const;
    int headCount() const;

    std::vector<attn::Matrix> perHead_;  ///< shown matrix per head (one when reduced)
    std::vector<bool> hidden_;
    int hoverQuery_ = -1, hoverKey_ = -1;
};
