// AttnScope — the weights of the selected query in the focused head, as bars. GPL-3.0-or-later.
#pragma once

#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "views/qcp.hpp"

/// One bar per key: α_ij for the selected query i in head h; masked keys are marked with ×.
class WeightsBar : public QCustomPlot {
    Q_OBJECT
  public:
    explicit WeightsBar(QWidget* parent = nullptr);

    void setResult(SceneResultPtr result);
    void setSelection(const Selection& selection);

    /// The bars' values (tests compare them with core's weights).
    QCPBars* bars() const { return bars_; }
    QString titleText() const;

  Q_SIGNALS:
    /// A bar was clicked: select that key.
    void keyClicked(int key, Qt::KeyboardModifiers modifiers);

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void rebuild();

    SceneResultPtr result_;
    Selection selection_;
    QCPBars* bars_ = nullptr;
    QCPGraph* masked_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QSharedPointer<QCPAxisTickerText> ticks_;
};
