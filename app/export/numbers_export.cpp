// AttnScope — the numbers behind a view as .npy or .csv. GPL-3.0-or-later.
#include "export/numbers_export.hpp"
#include "export/export_tr.hpp"
#include "export/output_device.hpp"

#include <QCoreApplication>
#include <QFileInfo>
#include <charconv>
#include <cmath>

#include "attn/analysis/view_math.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/util/memory_budget.hpp"

namespace exporting {
namespace {

/// Appends the weights of every head of r (or of head `only`).
void append(Numbers& n, const attn::SceneResult& r, int layer, int only = -1) {
    const auto heads = static_cast<std::uint64_t>(only >= 0 ? 1 : r.heads.size());
    const auto nq = static_cast<std::uint64_t>(r.q_tokens.size());
    const auto nk = static_cast<std::uint64_t>(r.k_tokens.size());
    if (n.shape.empty()) {
        n.shape = {0, heads, nq, nk};
        n.qTokens = r.q_tokens;
        n.kTokens = r.k_tokens;
    }
    // Estimated first: a 32k-token head is 4 GB of numbers.
    attn::require_memory(
        double(sizeof(n.values[0])) * double(heads * nq * nk) * double(n.shape[0] + 1),
        std::to_string(heads) + " heads of " + std::to_string(nq) + " × " + std::to_string(nk) +
            " weights",
        "export one head of a shorter sequence, or the picture instead");
    for (std::size_t h = 0; h < r.heads.size(); ++h) {
        if (only >= 0 && int(h) != only) continue;
        const attn::Matrix& w = r.heads[h].weights;
        if (!r.heads[h].streamed()) {
            n.values.insert(n.values.end(), w.data(), w.data() + w.size());
            continue;
        }
        // A streamed head holds no weights: recomputed row by row (the budget was checked).
        for (attn::Index i = 0; i < r.query_count(); ++i) {
            const Eigen::RowVectorXf row = r.weights_row(attn::Index(h), i);
            n.values.insert(n.values.end(), row.data(), row.data() + row.size());
        }
    }
    n.shape[0] += 1;
    n.layerIndex.push_back(layer);
}

}  // namespace

QByteArray csvField(const std::string& text) {
    QByteArray field = QByteArray::fromStdString(text);
    if (field.contains(',') || field.contains('"') || field.contains('\n') ||
        field.contains('\r')) {
        field.replace("\"", "\"\"");
        field = '"' + field + '"';
    }
    return field;
}

void writeWeightsCsv(QIODevice& out, int layer, int head, const float* weights,
                     const std::vector<std::string>& qTokens,
                     const std::vector<std::string>& kTokens) {
    const QByteArray prefix = QByteArray::number(layer) + ',' + QByteArray::number(head) + ',';
    QByteArray line;
    std::size_t i = 0;
    for (std::size_t q = 0; q < qTokens.size(); ++q) {
        const QByteArray row =
            prefix + QByteArray::number(qulonglong(q)) + ',' + csvField(qTokens[q]) + ',';
        for (std::size_t k = 0; k < kTokens.size(); ++k, ++i) {
            line = row + QByteArray::number(qulonglong(k)) + ',' + csvField(kTokens[k]) + ',' +
                   QByteArray::number(weights[i], 'g', 9) + '\n';
            out.write(line);
        }
    }
}

namespace {

QString writeCsv(const Numbers& n, const QString& path) {
    OutputDevice file(path);
    if (!file.open(QIODevice::WriteOnly)) return tr("%1: %2").arg(path, file.errorString());
    file.write(kWeightsCsvHeader);
    const std::uint64_t L = n.shape[0], H = n.shape[1], Q = n.shape[2], K = n.shape[3];
    for (std::uint64_t l = 0; l < L; ++l)
        for (std::uint64_t h = 0; h < H; ++h) {
            const int head = h < n.headIndex.size() ? n.headIndex[h] : int(h);
            writeWeightsCsv(file, n.layerIndex[l], head, n.values.data() + (l * H + h) * Q * K,
                            n.qTokens, n.kTokens);
        }
    if (!file.commit()) return tr("%1: %2").arg(path, file.errorString());
    return {};
}

/// The shortest decimal that reads back to exactly v (so a re-read CSV equals what was drawn).
QByteArray decimal(double v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return QByteArray(buf, static_cast<qsizetype>(end - buf));
}

QByteArray label(const QStringList& labels, std::size_t i) {
    return i < std::size_t(labels.size()) ? csvField(labels[qsizetype(i)].toStdString())
                                          : QByteArray();
}

QString writePlotCsv(const PlotNumbers& n, const QString& path) {
    OutputDevice file(path);
    if (!file.open(QIODevice::WriteOnly)) return tr("%1: %2").arg(path, file.errorString());
    file.write("series_index,plot,series,x,y,z,x_label,y_label\n");
    QByteArray line;
    for (std::size_t s = 0; s < n.series.size(); ++s) {
        const Series& series = n.series[s];
        const QByteArray head = QByteArray::number(qulonglong(s)) + ',' +
                                csvField(series.plot.toStdString()) + ',' +
                                csvField(series.name.toStdString()) + ',';
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            line = head + decimal(series.x[i]) + ',' + decimal(series.y[i]) + ',';
            if (i < series.z.size()) line += decimal(series.z[i]);
            line += ',' + label(series.xLabels, i) + ',' + label(series.yLabels, i) + '\n';
            file.write(line);
        }
    }
    if (!file.commit()) return tr("%1: %2").arg(path, file.errorString());
    return {};
}

}  // namespace

Numbers numbersOf(const attn::SceneResult& result) {
    Numbers n;
    append(n, result, static_cast<int>(result.layer));
    return n;
}

Numbers numbersOfHead(const attn::SceneResult& result, int head) {
    if (head < 0 || std::size_t(head) >= result.heads.size()) return numbersOf(result);
    Numbers n;
    append(n, result, static_cast<int>(result.layer), head);
    n.headIndex = {head};
    return n;
}

QString writeNumbers(const Numbers& n, const QString& path) {
    if (n.shape.size() != 4 || n.values.empty())
        return tr("%1: there are no numbers to write").arg(path);
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QLatin1StringView("csv")) return writeCsv(n, path);
    if (ext != QLatin1StringView("npy"))
        return tr("%1: numbers are written as .npy or .csv").arg(path);
    std::vector<std::uint64_t> shape = n.shape;
    // One layer is [H, Nq, Nk]; one focused head is the matrix [Nq, Nk] it shows.
    if (n.headIndex.size() == 1 && shape[1] == 1) shape.erase(shape.begin() + 1);
    if (shape[0] == 1) shape.erase(shape.begin());
    try {
        attn::io::write_npy(QFile::encodeName(path).toStdString(), n.values, shape);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString writePlotNumbers(const PlotNumbers& n, const QString& path) {
    std::size_t rows = 0;
    for (const Series& s : n.series) {
        if (s.y.size() != s.x.size() || (!s.z.empty() && s.z.size() != s.x.size()))
            return tr("%1: series \"%2\" has columns of different lengths").arg(path, s.name);
        rows += s.x.size();
    }
    if (rows == 0) return tr("%1: there are no numbers to write").arg(path);
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QLatin1StringView("csv")) return writePlotCsv(n, path);
    if (ext != QLatin1StringView("npy"))
        return tr("%1: numbers are written as .npy or .csv").arg(path);
    std::vector<float> table;
    table.reserve(rows * 4);
    for (std::size_t s = 0; s < n.series.size(); ++s) {
        const Series& series = n.series[s];
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            table.push_back(float(s));
            table.push_back(float(series.x[i]));
            table.push_back(float(series.y[i]));
            table.push_back(i < series.z.size() ? float(series.z[i]) : std::nanf(""));
        }
    }
    const std::uint64_t shape[] = {rows, 4};
    try {
        attn::io::write_npy(QFile::encodeName(path).toStdString(), table, shape);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace exporting
