// AttnScope — the mouse wheel scrolls a page of controls. GPL-3.0-or-later.
#include "widgets/wheel_guard.hpp"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QSlider>
#include <QWidget>

namespace {

/// Turns away a wheel turn over a control without the focus. Ignored, the event goes on to the
/// control's parents (QApplication propagates an ignored wheel event), up to the scroll area.
class WheelGuard : public QObject {
  public:
    using QObject::QObject;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Wheel && !static_cast<QWidget*>(watched)->hasFocus()) {
            event->ignore();
            return true;
        }
        return false;
    }
};

void guard(QWidget* control, QObject* filter) {
    // StrongFocus, not WheelFocus: a wheel turn that gave the focus would change it after all.
    if (control->focusPolicy() == Qt::WheelFocus) control->setFocusPolicy(Qt::StrongFocus);
    control->installEventFilter(filter);  // installed again: still once
}

}  // namespace

void guardWheel(QWidget* page) {
    static WheelGuard* filter = new WheelGuard(QCoreApplication::instance());  // one for all
    for (auto* c : page->findChildren<QSlider*>())  // not QAbstractSlider: scroll bars scroll
        guard(c, filter);
    for (auto* c : page->findChildren<QAbstractSpinBox*>())
        guard(c, filter);
    for (auto* c : page->findChildren<QComboBox*>())
        guard(c, filter);
}
