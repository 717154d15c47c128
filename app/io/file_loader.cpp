// AttnScope — turns any supported file into the scene spec that shows it. GPL-3.0-or-later.
#include "io/file_loader.hpp"
#include "io/fileio_tr.hpp"
#include "io/local_path.hpp"
#include "io/seq2seq_session.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "attn/io/infer_mask.hpp"
#include "attn/io/json/tokens.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/batch_result.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/families.hpp"
#include "attn/models/model_identity.hpp"
#include "attn/scene/spec_edit.hpp"
#include "attn/util/error.hpp"
#include "model/batch_document.hpp"

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
    // A file's attention or tokens replace the model's run and what belonged to it (Model ▸
    // Open reopens it).
    spec = attn::without_run_state(std::move(spec));
    spec.set_synthetic();
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

/// MESSAGE of an error about FILE with FILE's base name at its start (core's loaders name the
/// file so) naming the full path instead.
std::string naming(const std::string& file, const std::string& message) {
    const std::string base =
        QFileInfo(QFile::decodeName(QByteArray::fromStdString(file))).fileName().toStdString();
    if (message.rfind(base + ": ", 0) == 0) return file + message.substr(base.size());
    if (message.rfind(file + ": ", 0) == 0) return message;
    return file + ": " + message;
}

/// Loads the attention file a session names into SPEC, keeping the session's component and
/// layer. A relative data path is relative to the session file, so a folder holding both can
/// move; where the data was when saved is the fallback. Messages name both files in full.
void loadSessionData(const std::string& sessionPath, const attn::io::Session& session,
                     attn::SceneSpec& spec, attn::Progress* progress) {
    std::string dataPath = attn::io::resolved_data_path(sessionPath, session);
    const auto exists = [](const std::string& p) {
        return QFileInfo::exists(QFile::decodeName(QByteArray::fromStdString(p)));
    };
    if (!exists(dataPath) && !session.data_absolute_path.empty() &&
        exists(session.data_absolute_path))
        dataPath = session.data_absolute_path;
    if (!exists(dataPath))
        throw attn::FormatError(sessionPath + ": the data file it opens, " + dataPath +
                                (dataPath == session.data_path
                                     ? std::string()
                                     : " (data.path \"" + session.data_path + "\")") +
                                ", does not exist (moved or deleted?)");
    attn::AttentionData data;
    try {
        data = attn::io::load_attention(dataPath, progress);
    } catch (const attn::ResourceError&) {
        throw;
    } catch (const attn::Cancelled&) {
        throw;
    } catch (const attn::Error& e) {
        throw attn::FormatError(sessionPath + ": its data file " + naming(dataPath, e.what()));
    }
    const attn::Index component = spec.component, layer = spec.layer;
    // The session's choice must exist in the data it names (a stale or edited session would
    // otherwise index past the components or layers).
    if (std::size_t(component) >= data.components.size())
        throw attn::FormatError(sessionPath + ": data.component is " + std::to_string(component) +
                                ", but " + dataPath + " has " +
                                std::to_string(data.components.size()) + " component(s)");
    if (layer >= data.components[std::size_t(component)].layers)
        throw attn::FormatError(sessionPath + ": data.layer is " + std::to_string(layer) +
                                ", but " + dataPath + " has " +
                                std::to_string(data.components[std::size_t(component)].layers) +
                                " layer(s) in that component");
    spec.set_loaded(std::make_shared<const attn::AttentionData>(std::move(data)));
    spec.component = component;
    spec.layer = layer;
}

/// Opens the model folder a session runs into SPEC (a relative model.path is relative to the
/// session file, as data.path). Returns a warning when the folder no longer holds the model
/// the session recorded ("" when it does, or when an older session recorded none): the folder
/// is run as it is now, and the warning says so.
QString openSessionModel(const std::string& sessionPath, const attn::io::Session& session,
                         attn::SceneSpec& spec) {
    const std::string dir = attn::io::resolved_model_path(sessionPath, session);
    const std::string family =
        session.model_identity
            ? attn::model::family_display(session.model_identity->family) + " model folder"
            : std::string("model folder");
    const std::string named =
        dir == session.model_path ? dir : dir + " (model.path \"" + session.model_path + "\")";
    // A folder, or a GGUF file.
    if (!QFileInfo::exists(QFile::decodeName(QByteArray::fromStdString(dir))))
        throw attn::FormatError(sessionPath + ": the " + family + " it runs, " + named +
                                ", does not exist (moved or deleted?); open the model again "
                                "with Model ▸ Open Model… and save the session");
    spec.set_model(std::make_shared<const attn::model::ModelFolder>(attn::model::open_folder(dir)));
    const attn::model::ModelInfo& info = spec.model->model->info();
    std::vector<int> chosen = spec.model_layers;
    chosen.push_back(int(spec.layer));
    for (const int l : chosen)
        if (l >= info.layers)
            throw attn::FormatError(sessionPath + ": model layer " + std::to_string(l) +
                                    " does not exist (" + dir + " holds a " + info.display +
                                    " model of " + std::to_string(info.layers) + " layers)");
    if (!session.model_identity) return {};
    const std::string differs = attn::model::identity_difference(
        *session.model_identity, attn::model::model_identity(*spec.model));
    if (differs.empty()) return {};
    return QString::fromStdString(
        sessionPath + ": the model folder " + dir +
        " holds another model than when the session was saved: " + differs +
        "; it runs the folder as it is now (save the session "
        "to record it)");
}

/// An attribute batch's tokens as its model folder's tokenizer shows them; a folder that is
/// gone or does not open leaves the ids to stand for them (its examples say so when clicked).
void labelBatchTokens(BatchSummary& batch) {
    if (!batch.attribution) return;
    const std::string dir = batch.result->text("model");
    if (dir.empty() || !QFileInfo(QString::fromStdString(dir)).isDir()) return;
    try {
        const attn::model::ModelFolder folder = attn::model::open_folder(dir);
        labelAttributionTokens(*batch.attribution, *batch.result, *folder.tokenizer);
    } catch (const std::exception&) {  // the labels only: the batch itself opened
    }
}

}  // namespace

Opened readFile(const QString& path, const attn::SceneSpec& current, attn::Progress* progress) {
    Opened out;
    out.viewsJson = QStringLiteral("{}");
    out.undoText = tr("Open %1").arg(QFileInfo(path).fileName());
    // A batch result is an .npz too: told apart by its keys, before the attention reader
    // would refuse it for having no attention.
    if (QFileInfo(path).suffix().compare(QLatin1StringView("npz"), Qt::CaseInsensitive) == 0 &&
        attn::io::is_batch_result_file(localPath(path))) {
        BatchSummary batch = summarizeBatch(std::make_shared<const attn::io::BatchResult>(
            attn::io::read_batch_result(localPath(QFileInfo(path).absoluteFilePath()))));
        labelBatchTokens(batch);
        out.batch = std::make_shared<const BatchSummary>(std::move(batch));
        return out;
    }
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
        const std::string sessionPath = localPath(QFileInfo(path).absoluteFilePath());
        if (!out.spec.is_loaded() && !session.data_path.empty())
            loadSessionData(sessionPath, session, out.spec, progress);
        if (session.seq2seq)
            out.seq2seq = std::make_shared<const ReopenedSeq2Seq>(
                reopenSeq2Seq(sessionPath, session, out.spec));
        else if (!session.model_path.empty())
            out.warning = openSessionModel(sessionPath, session, out.spec);
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
