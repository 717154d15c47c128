// AttnScope — a label of at most two lines that elides what does not fit. GPL-3.0-or-later.
#pragma once

#include <QLabel>

/// Plain text on one line, or wrapped onto a second one when it is too long, and elided at the
/// end of that second line only when even two lines cannot hold it (the whole text is then its
/// tooltip): a note or readout above or under the heatmaps that must not push the window wider,
/// nor be cut off mid-word at the window's edge. Once a text needed two lines the label keeps
/// their height until its width changes, so a shorter readout does not make the heads jump.
class ElidedLabel : public QLabel {
    Q_OBJECT
  public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    /// Sets the whole text (wrapped, and elided when it does not fit on two lines).
    void setFullText(const QString& text);
    /// The whole text, elided or not.
    const QString& fullText() const { return full_; }
    /// True when the shown text is shorter than the whole text.
    bool isElided() const { return elided_; }
    /// The tooltip while the whole text fits (when it is elided, the tooltip is the whole text).
    void setToolTipWhenWhole(const QString& toolTip) { wholeToolTip_ = toolTip; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void elide();
    QString full_;
    QString wholeToolTip_;
    bool elided_ = false;
    int lines_ = 1;       ///< lines whose height is kept (1 or 2)
    int lastWidth_ = -1;  ///< the width lines_ was found for
};
