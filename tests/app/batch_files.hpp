// AttnScope app tests — batch results as `attnscope batch` writes them (docs/datasets.md,
// "Output"), written by hand with their aggregates worked out here, and the readers the Batch
// tab's tests share: the list's order, a hovered cell's tooltip, a panel exported through its
// button. GPL-3.0-or-later.
#pragma once

#include <QHelpEvent>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QtTest>
#include <cmath>
#include <limits>

#include <QTimer>
#include "attn/analysis/census.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
#include "export/export_dialog.hpp"
#include "interventions_window.hpp"
#include "io/batch_runs.hpp"
#include "io/file_controller.hpp"
#include "model/batch_document.hpp"
#include "model/compute_service.hpp"
#include "views/batch_view.hpp"
#include "views/cell_map.hpp"

namespace batch_test {

inline constexpr int kE = 4, kL = 3, kH = 2;

/// per_example/head_patch [E, L, H]: example e, layer l, head h.
inline const float kPatch[kE][kL][kH] = {
    {{1.f, 0.f}, {0.5f, 0.2f}, {0.f, 0.1f}},
    {{2.f, 0.f}, {-0.5f, 0.4f}, {0.f, 0.3f}},
    {{3.f, 1.f}, {0.25f, 0.6f}, {0.f, -0.2f}},
    {{4.f, 1.f}, {0.75f, 0.8f}, {0.f, 0.f}},
};

inline std::vector<std::byte> strings(const std::vector<std::string>& s) {
    return attn::io::npy_string_bytes(s);
}

/// What a patch batch of kPatch writes, with the aggregates worked out here (numpy's mean and
/// population std, in double).
inline attn::io::NpzMembers patchBatch(const std::string& model) {
    std::vector<float> per, mean, sd;
    for (int e = 0; e < kE; ++e)
        for (int l = 0; l < kL; ++l)
            for (int h = 0; h < kH; ++h)
                per.push_back(kPatch[e][l][h]);
    for (int l = 0; l < kL; ++l)
        for (int h = 0; h < kH; ++h) {
            double m = 0, v = 0;
            for (int e = 0; e < kE; ++e)
                m += kPatch[e][l][h] / double(kE);
            for (int e = 0; e < kE; ++e)
                v += (kPatch[e][l][h] - m) * (kPatch[e][l][h] - m) / double(kE);
            mean.push_back(float(m));
            sd.push_back(float(std::sqrt(v)));
        }
    const std::vector<std::uint64_t> perShape{kE, kL, kH}, headShape{kL, kH}, one{1};
    const std::vector<std::int32_t> count{kE}, lines{1, 2, 4, 5}, skipped{3};
    return {{"analysis", strings({"patch"})},
            {"model", strings({model})},
            {"options", strings({"on-error=skip"})},
            {"examples/line", attn::io::npy_i4_bytes(lines)},
            {"examples/clean",
             strings({"the cat sat", "a bird flew", "one two three", "the sun rose"})},
            {"examples/corrupt",
             strings({"the dog sat", "a fish flew", "one two four", "the moon rose"})},
            {"examples/answer", strings({"42", "7", "8", "9"})},
            {"examples/wrong", strings({"114", "70", "80", "90"})},
            {"skipped/line", attn::io::npy_i4_bytes(skipped)},
            {"skipped/reason", strings({"invalid JSON"})},
            {"per_example/head_patch", attn::io::npy_bytes(per, perShape)},
            {"aggregate/head_patch_mean", attn::io::npy_bytes(mean, headShape)},
            {"aggregate/head_patch_std", attn::io::npy_bytes(sd, headShape)},
            {"aggregate/count", attn::io::npy_i4_bytes(count, one)}};
}

/// A census batch of 3 examples on 3 layers × 2 heads: per_example scores with induction
/// undefined (NaN) in examples 1 and 2, and everywhere for layer 3, head 2; the aggregates as
/// docs/datasets.md defines them (over the defined values), worked out here.
inline attn::io::NpzMembers censusBatch(const std::string& model) {
    constexpr int e = 3, p = attn::kPatternCount;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> scores;
    std::vector<std::int32_t> labels;
    for (int x = 0; x < e; ++x)
        for (int l = 0; l < kL; ++l)
            for (int h = 0; h < kH; ++h) {
                for (int k = 0; k < p; ++k) {
                    const bool undefined = k == int(attn::HeadPattern::Induction) &&
                                           (x > 0 || (l == kL - 1 && h == kH - 1));
                    scores.push_back(undefined ? nan : float(0.1 * (x + 1) + 0.01 * (l * kH + h)));
                }
                // Layer 1, head 1: previous-token twice, mixed once.
                labels.push_back(l == 0 && h == 0 && x < 2 ? 0 : p);
            }
    std::vector<float> mean, sd;
    std::vector<std::int32_t> defined, wins;
    for (int l = 0; l < kL; ++l)
        for (int h = 0; h < kH; ++h) {
            for (int k = 0; k < p; ++k) {
                double sum = 0, sq = 0;
                int n = 0;
                for (int x = 0; x < e; ++x)
                    if (const float v = scores[std::size_t(((x * kL + l) * kH + h) * p + k)];
                        !std::isnan(v))
                        sum += v, ++n;
                const double m = n ? sum / n : nan;
                for (int x = 0; x < e; ++x)
                    if (const float v = scores[std::size_t(((x * kL + l) * kH + h) * p + k)];
                        !std::isnan(v))
                        sq += (v - m) * (v - m);
                mean.push_back(float(m));
                sd.push_back(n ? float(std::sqrt(sq / n)) : nan);
                defined.push_back(n);
            }
            for (int k = 0; k <= p; ++k) {
                int n = 0;
                for (int x = 0; x < e; ++x)
                    n += labels[std::size_t((x * kL + l) * kH + h)] == k;
                wins.push_back(n);
            }
        }
    const std::vector<std::uint64_t> per{e, kL, kH, p}, lab{e, kL, kH}, agg{kL, kH, p},
        counts{kL, kH, p + 1}, one{1};
    const std::vector<std::int32_t> count{e};
    return {{"analysis", strings({"census"})},
            {"model", strings({model})},
            {"examples/text", strings({"the cat sat", "the dog sat", "a cat ran"})},
            {"per_example/census_scores", attn::io::npy_bytes(scores, per)},
            {"per_example/census_label", attn::io::npy_i4_bytes(labels, lab)},
            {"aggregate/census_scores_mean", attn::io::npy_bytes(mean, agg)},
            {"aggregate/census_scores_std", attn::io::npy_bytes(sd, agg)},
            {"aggregate/census_scores_count", attn::io::npy_i4_bytes(defined, agg)},
            {"aggregate/census_label_counts", attn::io::npy_i4_bytes(wins, counts)},
            {"aggregate/count", attn::io::npy_i4_bytes(count, one)}};
}

/// MEMBERS with KEY replaced by BYTES (or removed, BYTES empty).
inline attn::io::NpzMembers edited(attn::io::NpzMembers members, const std::string& key,
                                   std::vector<std::byte> bytes) {
    std::erase_if(members, [&](const auto& m) { return m.first == key; });
    if (!bytes.empty()) members.emplace_back(key, std::move(bytes));
    return members;
}

/// The example indices of LIST's rows, top to bottom.
inline std::vector<int> listed(QTableWidget* list) {
    std::vector<int> out;
    for (int r = 0; r < list->rowCount(); ++r)
        out.push_back(list->item(r, 0)->data(Qt::UserRole).toInt());
    return out;
}

/// Hovers MAP's cell (ROW, COLUMN) as the mouse does and returns the tooltip shown.
inline QString hover(CellMap* map, int row, int column) {
    const QPoint at = map->cellCentre(row, column);
    QTest::mouseMove(map, at);
    QHelpEvent help(QEvent::ToolTip, at, map->mapToGlobal(at));
    QApplication::sendEvent(map, &help);
    const QString text = QToolTip::isVisible() ? QToolTip::text() : QString();
    QToolTip::hideText();
    return text;
}

/// Clicks PANEL's Export… button, types PATH into the dialog and presses Enter; whether the
/// file was written.
inline bool exportThroughButton(QWidget* panel, const QString& path) {
    auto* button = panel->findChild<QToolButton*>();
    if (!button) return false;
    QFile::remove(path);
    bool answered = false;
    QTimer::singleShot(0, panel, [&] {
        auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        test_support::retype(dialog->pathEdit(), path);
        QTest::keyClick(dialog->pathEdit(), Qt::Key_Return);
        answered = true;
    });
    QTest::mouseClick(button, Qt::LeftButton);
    return answered && QFileInfo::exists(path);
}

/// A window on the tiny GPT-2 with the data I/O attached (quiet), 1280×800; its BatchRuns.
inline fileio::BatchRuns* batchWindow(MainWindow& w) {
    if (!test_support::attachQuietModels(w)) return nullptr;
    w.findChild<fileio::FileController*>()->setQuiet(true);
    w.resize(1280, 800);
    return w.findChild<fileio::BatchRuns*>();
}

/// Writes MEMBERS as DIR/NAME; the path.
inline QString writeBatch(const QTemporaryDir& dir, const QString& name,
                          const attn::io::NpzMembers& members) {
    const QString path = dir.filePath(name);
    attn::io::write_npz(path.toStdString(), members);
    return path;
}

}  // namespace batch_test
