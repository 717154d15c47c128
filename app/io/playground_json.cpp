// AttnScope — the playground's state in a session's "views" object. GPL-3.0-or-later.
#include "io/playground_json.hpp"

#include <QJsonArray>

namespace fileio {
namespace {

QJsonArray points(const std::vector<Eigen::Vector2d>& v) {
    QJsonArray a;
    for (const auto& p : v)
        a.append(QJsonArray{p.x(), p.y()});
    return a;
}

bool readPoints(const QJsonValue& value, std::vector<Eigen::Vector2d>* out) {
    if (value.isUndefined()) return true;
    if (!value.isArray()) return false;
    out->clear();
    for (const QJsonValue& p : value.toArray()) {
        const QJsonArray xy = p.toArray();
        if (xy.size() != 2 || !xy[0].isDouble() || !xy[1].isDouble()) return false;
        out->emplace_back(xy[0].toDouble(), xy[1].toDouble());
    }
    return true;
}

QJsonArray matrix(const Eigen::Matrix2d& m) {
    return {m(0, 0), m(0, 1), m(1, 0), m(1, 1)};
}

bool readMatrix(const QJsonValue& value, Eigen::Matrix2d* m) {
    if (value.isUndefined()) return true;
    const QJsonArray a = value.toArray();
    if (a.size() != 4) return false;
    *m << a[0].toDouble(), a[1].toDouble(), a[2].toDouble(), a[3].toDouble();
    return true;
}

}  // namespace

QJsonObject playgroundToJson(const attn::PlaygroundState& s) {
    QJsonArray masked;
    for (bool m : s.masked)
        masked.append(m);
    return {
        {QStringLiteral("queries"), points(s.queries)},
        {QStringLiteral("keys"), points(s.keys)},
        {QStringLiteral("values"), points(s.values)},
        {QStringLiteral("masked"), masked},
        {QStringLiteral("score"), QString::fromLatin1(attn::to_string(s.score))},
        {QStringLiteral("W"), matrix(s.W)},
        {QStringLiteral("Wa"), matrix(s.Wa)},
        {QStringLiteral("Ua"), matrix(s.Ua)},
        {QStringLiteral("va"), QJsonArray{s.va.x(), s.va.y()}},
        {QStringLiteral("sigma"), s.sigma},
        {QStringLiteral("scale"), s.scale},
        {QStringLiteral("as_if_dk"), s.as_if_dk},
        {QStringLiteral("temperature"), s.temperature},
        {QStringLiteral("hard_sample"), s.hard_sample},
        // As a string: JSON numbers are doubles and would round a 64-bit seed.
        {QStringLiteral("seed"), QString::number(s.seed)},
        {QStringLiteral("selected_query"), s.selected_query},
        {QStringLiteral("overlay"), s.overlay},
        {QStringLiteral("snap_to_grid"), s.snap_to_grid},
        {QStringLiteral("grid_step"), s.grid_step},
        {QStringLiteral("sorted_bars"), s.sorted_bars},
    };
}

bool playgroundFromJson(const QJsonObject& j, attn::PlaygroundState* out) {
    attn::PlaygroundState s = *out;
    if (!readPoints(j.value(QStringLiteral("queries")), &s.queries) ||
        !readPoints(j.value(QStringLiteral("keys")), &s.keys) ||
        !readPoints(j.value(QStringLiteral("values")), &s.values))
        return false;
    if (j.contains(QStringLiteral("masked"))) {
        s.masked.clear();
        for (const QJsonValue& m : j.value(QStringLiteral("masked")).toArray())
            s.masked.push_back(m.toBool());
    }
    try {
        if (j.contains(QStringLiteral("score")))
            s.score = attn::score_kind_from_string(
                j.value(QStringLiteral("score")).toString().toStdString());
    } catch (const std::exception&) {
        return false;
    }
    if (!readMatrix(j.value(QStringLiteral("W")), &s.W) ||
        !readMatrix(j.value(QStringLiteral("Wa")), &s.Wa) ||
        !readMatrix(j.value(QStringLiteral("Ua")), &s.Ua))
        return false;
    if (j.contains(QStringLiteral("va"))) {
        const QJsonArray va = j.value(QStringLiteral("va")).toArray();
        if (va.size() != 2) return false;
        s.va = Eigen::Vector2d(va[0].toDouble(), va[1].toDouble());
    }
    s.sigma = j.value(QStringLiteral("sigma")).toDouble(s.sigma);
    s.scale = j.value(QStringLiteral("scale")).toBool(s.scale);
    s.as_if_dk = j.value(QStringLiteral("as_if_dk")).toInt(s.as_if_dk);
    s.temperature = j.value(QStringLiteral("temperature")).toDouble(s.temperature);
    s.hard_sample = j.value(QStringLiteral("hard_sample")).toBool(s.hard_sample);
    if (j.contains(QStringLiteral("seed"))) {
        bool ok = false;
        s.seed = j.value(QStringLiteral("seed")).toString().toULongLong(&ok);
        if (!ok) return false;
    }
    s.selected_query = j.value(QStringLiteral("selected_query")).toInt(s.selected_query);
    s.overlay = j.value(QStringLiteral("overlay")).toBool(s.overlay);
    s.snap_to_grid = j.value(QStringLiteral("snap_to_grid")).toBool(s.snap_to_grid);
    s.grid_step = j.value(QStringLiteral("grid_step")).toDouble(s.grid_step);
    s.sorted_bars = j.value(QStringLiteral("sorted_bars")).toBool(s.sorted_bars);
    *out = std::move(s);
    return true;
}

}  // namespace fileio
