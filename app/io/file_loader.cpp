// AttnScope — turns any supported file into the scene spec that shows it. GPL-3.0-or-later.
#include "io/file_loader.hpp"
#include "io/fileio_tr.hpp"
#include "io/local_path.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "attn/error.hpp"
#include "attn/io/infer_mask.hpp"
#include "attn/io/load.hpp"
#include "attn/io/session.hpp"
#include "attn/io/tokens.hpp"
#include "attn/model/families.hpp"

namespace fileio {
namespace {

/// Controls keyed to the old sequence (padding flags, global tokens, a custom matrix) would not
/// fit a new one; a token file keeps everything else (loaded attention: startAsTheDataSays).
void dropSequenceBoundState(attn::SceneSpec& spec) {
    spec.mask.key_valid.clear();
    spec.mask.global.clear();
    spec.mask.custom.resize(0, 0);
    if (spec.mask.kind == attn::MaskKind::Custom) spec.mask.kind = attn::MaskKind::None;
    spec.embeddings.reset();
    // A file's attention or tokens replace the model's run (Model ▸ Open reopens it).
    spec.set_synthetic();
    spec.model_layers.clear();
}

/// Loaded data brings its own settings: what the synthetic scene set and the file does not say
/// goes back to what the model did (plain scaled dot product, τ = 1, no mask) rather than
/// silently reshaping the model's scores with an RBF kernel or a causal mask it never had.
void startAsTheDataSays(attn::SceneSpec& spec, const attn::AttentionData& data) {
    spec.score = attn::ScoreKind::Dot;
    spec.scale = true;
    spec.temperature = 1.f;
    spec.mask = attn::MaskSpec{};
    // A decoder's file (GPT-2) holds weights that are zero above the diagonal: its raw
    // scores only reproduce them under the causal mask, so that is where the controls start.
    if (attn::io::scores_need_causal_mask(data)) spec.mask.kind = attn::MaskKind::Causal;
}

}  // namespace

Opened readFile(const QString& path, const attn::SceneSpec& current, attn::Progress* progress) {
    Opened out;
    out.viewsJson = QStringLiteral("{}");
    out.undoText = tr("Open %1").arg(QFileInfo(path).fileName());
    attn::io::Loaded loaded = attn::io::load_any(localPath(path), progress);
    if (auto* data = std::get_if<attn::AttentionData>(&loaded)) {
        out.spec = current;
        dropSequenceBoundState(out.spec);
        startAsTheDataSays(out.spec, *data);
        const attn::Index first = data->default_component;
        out.spec.set_loaded(std::make_shared<const attn::AttentionData>(std::move(*data)));
        out.spec.component = first;
        out.spec.layer = 0;
        out.spec.data_dk.reset();
    } else if (auto* tokens = std::get_if<attn::io::TokenText>(&loaded)) {
        out.spec = current;
        dropSequenceBoundState(out.spec);  // synthetic: the tokens are the text
        out.spec.component = out.spec.layer = 0;
        out.spec.text = tokens->text;
        out.spec.tokens = tokens->tokens;
    } else {
        auto& session = std::get<attn::io::Session>(loaded);
        out.isSession = true;
        out.spec = std::move(session.spec);
        out.viewsJson = QString::fromStdString(session.views);
        if (!out.spec.is_loaded() && !session.data_path.empty()) {
            // A relative data path is relative to the session file, so a folder holding both
            // can move; where the data was when saved is the fallback.
            QString dataPath =
                QFile::decodeName(QByteArray::fromStdString(attn::io::resolved_data_path(
                    localPath(QFileInfo(path).absoluteFilePath()), session)));
            const QString absolute =
                QFile::decodeName(QByteArray::fromStdString(session.data_absolute_path));
            if (!QFileInfo::exists(dataPath) && !absolute.isEmpty() && QFileInfo::exists(absolute))
                dataPath = absolute;
            auto data = attn::io::load_attention(localPath(dataPath), progress);
            const attn::Index component = out.spec.component, layer = out.spec.layer;
            // The session's choice must exist in the data it names (a stale or edited session
            // would otherwise index past the components or layers).
            if (std::size_t(component) >= data.components.size())
                throw attn::FormatError(localPath(path) + ": data.component is " +
                                        std::to_string(component) + ", but " + localPath(dataPath) +
                                        " has " + std::to_string(data.components.size()) +
                                        " component(s)");
            if (layer >= data.components[std::size_t(component)].layers)
                throw attn::FormatError(
                    localPath(path) + ": data.layer is " + std::to_string(layer) + ", but " +
                    localPath(dataPath) + " has " +
                    std::to_string(data.components[std::size_t(component)].layers) +
                    " layer(s) in that component");
            out.spec.set_loaded(std::make_shared<const attn::AttentionData>(std::move(data)));
            out.spec.component = component;
            out.spec.layer = layer;
        }
        if (!session.model_path.empty()) {
            // The session runs a GPT-2 folder: it must still be where it was saved.
            const QString dir = QFile::decodeName(QByteArray::fromStdString(session.model_path));
            if (!QFileInfo(dir).isDir())
                throw attn::FormatError(
                    localPath(path) + ": the GPT-2 model folder it runs, " + session.model_path +
                    ", does not exist (moved or deleted?); open the model again with Model ▸ "
                    "Open Model… and save the session");
            out.spec.set_model(std::make_shared<const attn::model::ModelFolder>(
                attn::model::open_folder(localPath(dir))));
            const int layers = out.spec.model->model->info().layers;
            std::vector<int> chosen = out.spec.model_layers;
            chosen.push_back(int(out.spec.layer));
            for (const int l : chosen)
                if (l >= layers)
                    throw attn::FormatError(localPath(path) + ": model layer " + std::to_string(l) +
                                            " does not exist (" + session.model_path + " has " +
                                            std::to_string(layers) + " layers)");
        }
    }
    return out;
}

attn::SceneSpec withEmbeddings(const QString& path, const attn::SceneSpec& current) {
    attn::Matrix e = attn::io::load_embeddings(localPath(path));
    attn::io::check_embeddings(e, current.query_tokens().size(), localPath(path));
    attn::SceneSpec spec = current;
    spec.d_model = e.cols();
    spec.embeddings = std::make_shared<const attn::Matrix>(std::move(e));
    spec.weights.reset();  // projections of the old width would not fit
    return spec;
}

int findComponent(const attn::SceneSpec& spec, const QString& name) {
    if (!spec.is_loaded()) return name == QLatin1StringView("0") ? 0 : -1;
    const auto& comps = spec.data->components;
    for (std::size_t i = 0; i < comps.size(); ++i)
        if (QString::fromStdString(comps[i].name).compare(name, Qt::CaseInsensitive) == 0)
            return static_cast<int>(i);
    bool ok = false;
    const int index = name.toInt(&ok);
    return ok && index >= 0 && static_cast<std::size_t>(index) < comps.size() ? index : -1;
}

QString componentList(const attn::SceneSpec& spec) {
    QStringList names;
    if (spec.is_loaded()) {
        for (std::size_t i = 0; i < spec.data->components.size(); ++i) {
            const auto& n = spec.data->components[i].name;
            names << (n.empty() ? tr("%1 (unnamed)").arg(i) : QString::fromStdString(n));
        }
    }
    return names.isEmpty() ? tr("none (not loaded data)") : names.join(QStringLiteral(", "));
}

}  // namespace fileio
