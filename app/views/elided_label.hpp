// AttnScope — a one-line label that elides what does not fit. GPL-3.0-or-later.
#pragma once

#include <QLabel>

/// One line of plain text, elided at the right when the label is narrower than the text (the
/// whole text is then its tooltip): a readout under the heatmaps that must not grow taller, nor
/// push the window wider, nor be cut off mid-letter at the window's edge.
class ElidedLabel : public QLabel {
    Q_OBJECT
  public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    /// Sets the whole text (shown elided when it does not fit).
    void setFullText(const QString& text);
    /// The whole text, elided or not.
    const QString& fullText() const { return full_; }
    /// True when the shown text is shorter than the whole text.
    bool isElided() const { return text() != full_; }
    /// The tooltip while the whole text fits (when it is elided, the tooltip is the whole text).
    void setToolTipWhenWhole(const QString& toolTip) { wholeToolTip_ = toolTip; }

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void elide();
    QString full_;
    QString wholeToolTip_;
};
