// AttnScope — CircuitsVis's coloured tokens: the text, shaded by attention. GPL-3.0-or-later.
#pragma once

#include <QRect>
#include <vector>

#include "views/attention_view.hpp"

/// The sentence as flowing text. Each key token is shaded by the weight the hovered query (or
/// else the selected queries, summed or averaged) gives it; reversed, each query is shaded by
/// how much it attends to the hovered (or selected) key. Per head, or the mean/max over heads.
/// Cross-attention shows the query sentence above the key sentence.
class TokensView : public AttentionView {
    Q_OBJECT
  public:
    explicit TokensView(QWidget* parent = nullptr);

    /// The value each shaded token gets now (keys, or queries when reversed), and the top.
    Eigen::RowVectorXf shading() const;
    /// Box of shown token t in the shaded paragraph; of the query paragraph when cross.
    QRect shadedRect(int t) const;
    QRect sourceRect(int t) const;
    /// True when queries and keys are different tokens (two paragraphs).
    bool isCross() const;
    int hovered() const { return hover_; }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

  protected:
    void rebuild() override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    /// Token boxes flowed into lines of the given width, starting at y; returns the end y.
    int flow(const std::vector<std::string>& tokens, int width, int y,
             std::vector<QRect>* boxes) const;
    /// Lays both paragraphs out for width; returns the bottom.
    int layoutFor(int width, std::vector<QRect>* source, std::vector<QRect>* shaded, int* sourceTop,
                  int* shadedTop) const;
    void relayout();
    /// Index under pos in the paragraph that sources the shading (the hover target), or −1.
    int sourceAt(const QPoint& pos) const;

    std::vector<QRect> sourceBoxes_, shadedBoxes_;
    int sourceTop_ = 0, shadedTop_ = 0, bottom_ = 0;
    int hover_ = -1;
};
