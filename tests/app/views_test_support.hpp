// AttnScope — helpers of the Views tests (views_test, views_window_test). GPL-3.0-or-later.
#pragma once

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "attn/analysis/census.hpp"
#include "attn/analysis/rollout.hpp"
#include "attn/io/load.hpp"
#include "export/export_controller.hpp"
#include "export/export_options.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "views/census_table.hpp"
#include "views/lines_view.hpp"
#include "views/math_panel.hpp"
#include "views/neuron_view.hpp"
#include "views/qk_view.hpp"
#include "views/rollout_view.hpp"
#include "views/tokens_view.hpp"
#include "views/views_tab.hpp"
#include "views/weights_bar.hpp"
#include "widgets/token_editor.hpp"

namespace views_test {

using test_support::fixture;

inline attn::SceneSpec fileSpec(const char* name, attn::Index component = 0) {
    attn::SceneSpec spec;
    spec.data = std::make_shared<const attn::AttentionData>(
        attn::io::load_attention(fixture(name).toStdString()));
    spec.component = component;
    spec.mask.kind = attn::MaskKind::Causal;
    return spec;
}

inline SceneResultPtr computed(const attn::SceneSpec& spec) {
    return std::make_shared<const attn::SceneResult>(attn::compute_scene(spec));
}

/// A real mouse move (hover) at pos, as the window system delivers it with tracking on.
inline void hover(QWidget* w, const QPoint& pos) {
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), w->mapToGlobal(QPointF(pos)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &move);
}

inline void drag(QWidget* w, const QPoint& from, const QPoint& to) {
    QTest::mousePress(w, Qt::LeftButton, Qt::NoModifier, from);
    for (int s = 1; s <= 4; ++s) {
        const QPoint p = from + (to - from) * s / 4;
        QMouseEvent move(QEvent::MouseMove, QPointF(p), w->mapToGlobal(QPointF(p)), Qt::LeftButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w, &move);
    }
    QTest::mouseRelease(w, Qt::LeftButton, Qt::NoModifier, to);
}

/// Shows a view at a size and waits for it, following `scene`'s selection requests.
template <typename V>
void showFollowing(V& view, Scene& scene, QSize size = {1000, 700}) {
    QObject::connect(&view, &AttentionView::selectionRequested, &scene, &Scene::setSelection);
    QObject::connect(&scene, &Scene::selectionChanged, &view,
                     [&] { view.setSelection(scene.selection()); });
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
}

}  // namespace views_test
