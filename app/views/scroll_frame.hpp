// AttnScope — a view that scrolls rather than squashes below its readable size.
// GPL-3.0-or-later.
#pragma once

#include <QScrollArea>

/// A frameless scroll area whose content fills the viewport and never shrinks below a readable
/// minimum: a small window scrolls the view instead of squashing its plots. A figure (export,
/// `attnscope render`) cannot scroll: while fitting, the content takes exactly the viewport.
class ScrollFrame : public QScrollArea {
    Q_OBJECT
  public:
    explicit ScrollFrame(QWidget* content, QWidget* parent = nullptr);

    /// The smallest size at which the content is readable.
    void setContentMinimum(const QSize& size);
    QSize contentMinimum() const { return minimum_; }
    /// Figure mode: no minimum and no scroll bars, the content fits the frame.
    void setFitting(bool on);
    bool fitting() const { return fitting_; }
    /// Width first: the frame takes its content's least width (no horizontal scroll bar) from
    /// the widget it sits in before its neighbours there take more than their least, and
    /// scrolls only when the widget has not that much room.
    void setWidthFirst(bool on);

    /// Sizes the content for the current viewport at once (offscreen rendering).
    void settle();

    /// Sets fitting on every ScrollFrame inside root (root included); returns the frames whose
    /// state this changed, so that a caller can restore exactly those.
    static QList<ScrollFrame*> setFittingIn(QWidget* root, bool on);
    /// root's size grown by what its frames scroll: the size at which nothing scrolls.
    static QSize naturalSize(QWidget* root);

  Q_SIGNALS:
    /// The viewport changed size (the content may need a new arrangement).
    void viewportResized();

  protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void apply();
    /// Sets the frame's least width for width first from its parent's room.
    void claimWidth();

    QSize minimum_;
    bool fitting_ = false;
    bool widthFirst_ = false;
};
