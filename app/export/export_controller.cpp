// AttnScope — File ▸ Export: the current tab as a figure or as numbers. GPL-3.0-or-later.
#include "export/export_controller.hpp"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "attn/models/hf_cache.hpp"
#include "attn/models/model.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/util/error.hpp"
#include "export/export_dialog.hpp"
#include "export/figure_export.hpp"
#include "export/intervention_arrays.hpp"
#include "export/layers_export.hpp"
#include "export/numbers_export.hpp"
#include "export/output_device.hpp"
#include "export/view_numbers.hpp"
#include "main_window.hpp"
#include "model/compute_service.hpp"
#include "model/scene.hpp"
#include "settings_keys.hpp"
#include "views/batch_view.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/model_grid.hpp"
#include "views/scroll_frame.hpp"
#include "views/token_labels.hpp"
#include "views/views_tab.hpp"
#include "widgets/progress_runner.hpp"

namespace exporting {

ExportController::ExportController(MainWindow* window) : QObject(window), window_(window) {
    connect(window_->exportAction(), &QAction::triggered, this,
            &ExportController::exportCurrentView);
    window_->exportAction()->setEnabled(true);
    window_->exportAction()->setToolTip(
        tr("Export the current view as PNG, SVG or PDF, or its numbers as .npy or .csv"));
}

QString ExportController::exportView(QWidget* view, const QString& path, const Options& options) {
    // Never through a link, over the loaded data, or over a read-only file.
    const attn::SceneSpec& spec = window_->scene()->spec();
    if (QString refused =
            checkOutput(path,
                        spec.is_loaded() ? QStringList{QString::fromStdString(spec.data->source)}
                                         : QStringList{},
                        false, tr("make it writable to replace it"));
        !refused.isEmpty())
        return refused;
    if (isFigure(options.format)) return exportFigure(view, path, options);
    // The Interventions tab's numbers are labelled arrays (.npz) or a long table (.csv); a
    // single .npy cannot hold them with their labels.
    if (attn::io::NpzMembers arrays; interventionArraysOfView(view, &arrays)) {
        if (options.format == Format::Npy)
            return tr("%1: the Interventions tab's numbers are several labelled arrays; export "
                      "them as .npz (or .csv)")
                .arg(QFileInfo(path).fileName());
        if (options.format == Format::Npz) return writeInterventionArrays(view, path);
    } else if (options.format == Format::Npz) {
        return tr("%1: .npz holds the Interventions tab's numbers; this view's are written as "
                  ".npy or .csv")
            .arg(QFileInfo(path).fileName());
    }
    try {
        // A lens or the playground: the numbers it plots, never the scene's weights.
        if (PlotNumbers plotted; plotNumbersOfView(view, &plotted))
            return writePlotNumbers(plotted, path);
        // The model view's numbers are every layer; the heads view shows the current result.
        if (qobject_cast<ModelGrid*>(view) ||
            view->findChild<ModelGrid*>(QString(), Qt::FindDirectChildrenOnly))
            return exportAllLayers(path);
        if (!window_->result()) return tr("%1: nothing has been computed yet").arg(path);
        // A focused head is a single-head view: its numbers are that head's only.
        if (auto* grid = qobject_cast<HeatmapGrid*>(view); grid && grid->focusedHead() >= 0)
            return writeNumbers(numbersOfHead(*window_->result(), grid->focusedHead()), path);
        return writeNumbers(numbersOf(*window_->result()), path);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

QString ExportController::exportAllLayers(const QString& path) {
    const attn::SceneSpec spec = window_->scene()->spec();
    const ComputeService* compute = window_->computeService();
    // The layer on screen is already computed: the stream takes it as it is.
    SceneResultPtr known;
    if (compute->result() && compute->resultSpec() == spec) known = compute->result();
    QString error;
    try {
        runWithProgress(window_, QStringLiteral("export numbers"),
                        tr("Exporting every layer to %1…").arg(QFileInfo(path).fileName()),
                        [&](attn::Progress* progress) {
                            error = writeAllLayers(spec, path, progress, known.get());
                        });
    } catch (const attn::Cancelled&) {
        return tr("%1: the export was cancelled; no file was written").arg(path);
    }
    return error;
}

void ExportController::exportCurrentView() {
    QWidget* view = window_->tabs()->currentWidget();
    if (!view) return;
    QString tab =
        window_->tabs()->tabText(window_->tabs()->currentIndex()).remove(QLatin1Char('&'));
    // Interventions: the page on show is the figure (its tab bar is no part of it).
    if (auto* iv = qobject_cast<InterventionsTab*>(view)) {
        tab += QStringLiteral(" ") +
               iv->pages()->tabText(iv->pages()->currentIndex()).remove(QLatin1Char('&'));
        view = iv->pages()->currentWidget();
    }
    // Theory holds a tab per lens: name the file and the dialog after the lens on show.
    if (auto* inner = qobject_cast<QTabWidget*>(view); inner && inner->currentIndex() >= 0)
        tab += QStringLiteral(" ") + inner->tabText(inner->currentIndex()).remove(QLatin1Char('&'));
    exportWithDialog(view, tab, tab.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
}

void ExportController::exportPanel(QWidget* panel, const QString& name) {
    if (panel) exportWithDialog(panel, name, name);
}

void ExportController::exportWithDialog(QWidget* view, const QString& tab, const QString& base) {
    // The last export's folder (never the data's), the last resolution, the last format.
    // The size at which nothing scrolls: every head or plot at its readable size.
    const QString ext =
        QSettings().value(settings_keys::kExportFormat, QStringLiteral("png")).toString();
    // A view with a figure part (the interventions' maps) proposes the figure's size alone.
    ExportDialog dialog(tab, ScrollFrame::naturalSize(figureOf(view)),
                        QDir(ExportDialog::startFolder()).filePath(base + QLatin1Char('.') + ext),
                        window_, figureTitle(view));
    if (attn::io::NpzMembers arrays; interventionArraysOfView(view, &arrays))
        dialog.setNumberFormats({Format::Npz, Format::Csv});
    else
        dialog.setNumberFormats({Format::Npy, Format::Csv});
    if (dialog.exec() != QDialog::Accepted || dialog.path().isEmpty()) return;
    const QString error = exportView(view, dialog.path(), dialog.options());
    if (!error.isEmpty()) {
        QMessageBox::warning(window_, tr("Export"), tr("The export failed:\n\n%1").arg(error));
        return;
    }
    dialog.rememberChoices();
    QSettings().setValue(settings_keys::kExportFormat, extension(dialog.options().format));
    window_->statusBar()->showMessage(tr("Exported %1").arg(dialog.path()), 5000);
}

QString ExportController::figureTitle(QWidget* view) const {
    // A batch result's figure is of its file, not of the scene.
    if (const BatchView* batch = BatchView::of(view)) return batch->figureTitle();
    const attn::SceneSpec& spec = window_->scene()->spec();
    QStringList parts;
    if (spec.is_loaded()) {
        parts << QFileInfo(QString::fromStdString(spec.data->source)).fileName();
        if (const attn::AttentionComponent* shown = attn::shown_component(spec)) {
            const auto& c = *shown;
            const QString name = componentTitle(c.name);
            if (spec.data->components.size() > 1 && !name.isEmpty()) parts << name;
            if (c.layers > 1 && !qobject_cast<ModelGrid*>(view))
                parts << tr("layer %1").arg(spec.layer + 1);
        }
    } else if (spec.is_model()) {
        // A model's run is no synthetic scene: its folder and the layer shown.
        parts
            << tr("model %1").arg(QString::fromStdString(attn::model::model_name(spec.model->dir)));
        if (!qobject_cast<ModelGrid*>(view)) parts << tr("layer %1").arg(spec.layer + 1);
    } else {
        parts << tr("synthetic scene (seed %1)").arg(spec.seed);
    }
    if (auto* grid = qobject_cast<HeatmapGrid*>(view); grid && grid->focusedHead() >= 0)
        parts << tr("head %1").arg(grid->focusedHead() + 1);
    return parts.join(QStringLiteral(" · "));
}

}  // namespace exporting
