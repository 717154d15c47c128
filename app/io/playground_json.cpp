// AttnScope — the playground's state in a session's "views" object: core's JSON
// (attn::io::playground_to_json), handed to the app's QJsonObject of views. GPL-3.0-or-later.
#include "io/playground_json.hpp"

#include <QJsonDocument>

#include "attn/io/json/playground_json.hpp"
#include "attn/util/error.hpp"

namespace fileio {

QJsonObject playgroundToJson(const attn::PlaygroundState& state) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(attn::io::playground_to_json(state)))
        .object();
}

bool playgroundFromJson(const QJsonObject& json, attn::PlaygroundState* state) {
    try {
        *state = attn::io::parse_playground(
            QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString(), *state, "session");
    } catch (const attn::Error&) {
        return false;
    }
    return true;
}

}  // namespace fileio
