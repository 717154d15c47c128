// AttnScope — the Model view's numbers: every layer's weights, streamed layer by layer.
// GPL-3.0-or-later.
#include "export/layers_export.hpp"
#include "export/export_tr.hpp"
#include "export/output_device.hpp"

#include <QCoreApplication>
#include <QFileInfo>
#include <new>

#include "attn/io/numpy/npy.hpp"
#include "attn/scene/scene_layers.hpp"
#include "export/numbers_export.hpp"

namespace exporting {
namespace {

/// Unwinds for_each_layer when the output, not the computation, failed.
struct WriteFailed {
    QString message;
};

}  // namespace

QString writeAllLayers(const attn::SceneSpec& spec, const QString& path, attn::Progress* progress,
                       const attn::SceneResult* known) {
    const QString ext = QFileInfo(path).suffix().toLower();
    const bool csv = ext == QLatin1StringView("csv");
    if (!csv && ext != QLatin1StringView("npy"))
        return tr("%1: numbers are written as .npy or .csv").arg(path);
    OutputDevice file(path);  // nothing replaces path unless every layer was written
    if (!file.open(QIODevice::WriteOnly)) return tr("%1: %2").arg(path, file.errorString());
    const auto layers = static_cast<std::uint64_t>(attn::layer_count(spec));
    std::uint64_t heads = 0, queries = 0, keys = 0;
    const auto put = [&](const char* data, qint64 size) {
        if (file.write(data, size) != size) throw WriteFailed{file.errorString()};
    };
    try {
        attn::for_each_layer(
            spec,
            [&](attn::Index l, const attn::SceneResult& r) {
                if (l == 0) {
                    heads = r.heads.size();
                    queries = r.q_tokens.size();
                    keys = r.k_tokens.size();
                    if (csv) {
                        put(kWeightsCsvHeader, qint64(sizeof kWeightsCsvHeader - 1));
                    } else {
                        std::vector<std::uint64_t> shape{layers, heads, queries, keys};
                        if (layers == 1) shape.erase(shape.begin());
                        const std::vector<std::byte> header = attn::io::npy_f4_header(shape);
                        put(reinterpret_cast<const char*>(header.data()), qint64(header.size()));
                    }
                }
                if (r.heads.size() != heads || r.q_tokens.size() != queries ||
                    r.k_tokens.size() != keys)
                    throw WriteFailed{tr("layer %1 has another shape than layer 1").arg(l + 1)};
                for (std::size_t h = 0; h < r.heads.size(); ++h) {
                    if (r.heads[h].streamed()) {
                        // A long scene holds no weights: written row by row as recomputed.
                        if (csv)
                            throw WriteFailed{
                                tr("%1 × %2 weights per head are too many for CSV; export .npy")
                                    .arg(queries)
                                    .arg(keys)};
                        for (attn::Index i = 0; i < r.query_count(); ++i) {
                            const Eigen::RowVectorXf row = r.weights_row(attn::Index(h), i);
                            put(reinterpret_cast<const char*>(row.data()),
                                qint64(row.size()) * qint64(sizeof(float)));
                        }
                        continue;
                    }
                    const attn::Matrix& w = r.heads[h].weights;
                    if (csv)
                        writeWeightsCsv(file, int(l), int(h), w.data(), r.q_tokens, r.k_tokens);
                    else
                        put(reinterpret_cast<const char*>(w.data()),
                            qint64(w.size()) * qint64(sizeof(float)));
                }
            },
            progress, false, known);  // weights are all the numbers hold
    } catch (const WriteFailed& e) {
        return tr("%1: %2").arg(path, e.message);
    } catch (const std::bad_alloc&) {
        return tr("%1: not enough memory to compute the layers").arg(path);
    }
    if (heads == 0 || queries == 0 || keys == 0)
        return tr("%1: there are no numbers to write").arg(path);
    if (!file.commit()) return tr("%1: %2").arg(path, file.errorString());
    return {};
}

}  // namespace exporting
