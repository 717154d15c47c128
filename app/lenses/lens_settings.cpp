// AttnScope — a lens's settings: its controls by their stable keys, for the view state and
// sessions (and by their labels, for sessions of 0.1). GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>

#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/view_state.hpp"
#include "widgets/undo_shortcuts.hpp"

namespace lens_settings {
/// The dynamic property with a control's key in sessions of 0.1.
constexpr char kLegacyKey[] = "attnLegacyKey";
}  // namespace lens_settings

void LensPanel::nameControl(QWidget* control, const char* key, const QString& label) {
    control->setObjectName(QString::fromLatin1(key));
    // Sessions of 0.1 keyed a control by its label as shown ("&Heads:" → "Heads:").
    QString legacy = label;
    legacy.remove(QLatin1Char('&'));
    control->setProperty(lens_settings::kLegacyKey, legacy.simplified());
}

namespace lens_settings {
/// A control's key in a session: its object name (set from its label by the add… helpers).
QList<QWidget*> namedControls(const QWidget* panel) {
    QList<QWidget*> out;
    for (QWidget* w : panel->findChildren<QWidget*>())
        if (!w->objectName().isEmpty() && !w->objectName().startsWith(QLatin1StringView("qt_")) &&
            (qobject_cast<QSlider*>(w) || qobject_cast<QAbstractSpinBox*>(w) ||
             qobject_cast<QComboBox*>(w) || qobject_cast<QCheckBox*>(w) ||
             qobject_cast<QLineEdit*>(w)))
            out << w;
    return out;
}
}  // namespace lens_settings

QJsonObject LensPanel::settings() const {
    QJsonObject out;
    for (QWidget* w : lens_settings::namedControls(this)) {
        if (auto* x = qobject_cast<QSlider*>(w)) out[w->objectName()] = x->value();
        if (auto* x = qobject_cast<QSpinBox*>(w)) out[w->objectName()] = x->value();
        if (auto* x = qobject_cast<QDoubleSpinBox*>(w)) out[w->objectName()] = x->value();
        if (auto* x = qobject_cast<QComboBox*>(w)) out[w->objectName()] = x->currentIndex();
        if (auto* x = qobject_cast<QCheckBox*>(w)) out[w->objectName()] = x->isChecked();
        if (auto* x = qobject_cast<QLineEdit*>(w)) out[w->objectName()] = x->text();
    }
    return out;
}

void LensPanel::setSettings(const QJsonObject& settings) {
    applySettings(settings, false);
}

void LensPanel::recordEdits() {
    recording_ = true;
    for (QWidget* w : lens_settings::namedControls(this))
        if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            // Its typing is already a step: Ctrl+Z undoes it, not the field's own history.
            edit->setProperty(UndoShortcutRouter::kTypingIsStepProperty, true);
            connect(edit, &QLineEdit::textChanged, this, &LensPanel::recordSettings);
        }
}

void LensPanel::recordSettings() {
    if (!scene_) return;
    ViewState* state = ViewState::of(scene_);
    const QJsonObject now = settings();
    if (!recording_ || following_ > 0) return state->setLensSettings(name_, now);
    const QJsonObject before = state->lensSettings(name_);
    if (before == now) return;
    state->editLensSettings(name_, now, tr("Change %1").arg(lensTitle(name_)),
                            mergeKey(before, now));
}

QString LensPanel::mergeKey(const QJsonObject& before, const QJsonObject& after) const {
    // A slider drag and a spin box's steps merge per control; typing per lens (a source typed,
    // then the target the lens pairs with it, is one step); a list or a box is a step each.
    QStringList changed;
    for (auto it = after.begin(); it != after.end(); ++it)
        if (before.value(it.key()) != it.value()) changed << it.key();
    bool typed = !changed.isEmpty();
    for (const QString& key : changed)
        typed = typed && qobject_cast<QLineEdit*>(findChild<QWidget*>(key));
    if (typed) return QStringLiteral("text");
    if (changed.size() != 1) return {};
    QWidget* control = findChild<QWidget*>(changed.front());
    return qobject_cast<QSlider*>(control) || qobject_cast<QAbstractSpinBox*>(control)
               ? changed.front()
               : QString();
}

void LensPanel::setLegacySettings(const QJsonObject& settings) {
    applySettings(settings, true);
}

void LensPanel::applySettings(const QJsonObject& settings, bool legacy) {
    const Following following(this);  // the view state's own values (a session, an undo)
    for (QWidget* w : lens_settings::namedControls(this)) {
        // A control a 0.1 session could not name (no label) keeps its object name there.
        const QString legacyKey = w->property(lens_settings::kLegacyKey).toString();
        const QJsonValue v =
            settings.value(legacy && !legacyKey.isEmpty() ? legacyKey : w->objectName());
        if (v.isUndefined()) continue;
        if (auto* x = qobject_cast<QSlider*>(w); x && v.isDouble()) x->setValue(v.toInt());
        if (auto* x = qobject_cast<QSpinBox*>(w); x && v.isDouble()) x->setValue(v.toInt());
        if (auto* x = qobject_cast<QDoubleSpinBox*>(w); x && v.isDouble())
            x->setValue(v.toDouble());
        if (auto* x = qobject_cast<QComboBox*>(w); x && v.isDouble() && v.toInt() < x->count())
            x->setCurrentIndex(v.toInt());
        if (auto* x = qobject_cast<QCheckBox*>(w); x && v.isBool()) x->setChecked(v.toBool());
        if (auto* x = qobject_cast<QLineEdit*>(w); x && v.isString()) {
            x->setText(v.toString());
            x->setCursorPosition(0);          // its beginning, not a tail cut mid-word
            Q_EMIT x->textEdited(x->text());  // the lens hears a user's edit
        }
    }
    requestRefresh();
}
