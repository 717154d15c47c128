// AttnScope — `attnscope render` and `attnscope compute`. GPL-3.0-or-later.
#include "cli/render_command.hpp"
#include "cli/cli_tr.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QWidget>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "attn/analysis/rollout.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/models/run.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "cli/exit_codes.hpp"
#include "cli/intervention_output.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "cli/view_factory.hpp"
#include "export/export_options.hpp"
#include "export/figure_export.hpp"
#include "model/compute_service.hpp"
#include "model/error_text.hpp"
#include "model/scene.hpp"

namespace cli {
namespace {

/// Options that do not fit the scene (h not dividing d_model, a window on no tokens…) are usage
/// errors; anything else going wrong while computing loaded data is the input's fault, and so
/// is a scene that a file alone described (a session whose heads do not divide its width).
int computeErrorCode(const std::exception& e, const SceneInput& input) {
    if (dynamic_cast<const attn::ResourceError*>(&e)) return kExitResource;
    if (input.blame.isEmpty() &&
        (dynamic_cast<const attn::ArgumentError*>(&e) || dynamic_cast<const attn::ShapeError*>(&e)))
        return kExitUsage;
    return kExitInput;
}

/// E's message, led by the file it blames when that file made the scene.
QString computeErrorText(const std::exception& e, const Request& request, const SceneInput& input) {
    const QString text = errorText(e, inputName(request));
    return input.blame.isEmpty() || text.startsWith(input.blame)
               ? text
               : input.blame + QStringLiteral(": ") + text;
}

std::vector<std::uint64_t> rolloutShape(const attn::RolloutAccumulator& r) {
    const auto& layers = r.layers();
    return {layers.size(), static_cast<std::uint64_t>(layers.at(0).rows()),
            static_cast<std::uint64_t>(layers.at(0).cols())};
}

/// R_0 … R_{L−1} as float32, row-major.
std::vector<float> rolloutValues(const attn::RolloutAccumulator& r) {
    std::vector<float> v;
    for (const attn::MatrixD& m : r.layers())
        for (attn::Index i = 0; i < m.rows(); ++i)
            for (attn::Index j = 0; j < m.cols(); ++j)
                v.push_back(static_cast<float>(m(i, j)));
    return v;
}

struct OutputSize {
    double bytes = 0;       ///< the whole file
    double layerBytes = 0;  ///< one layer's stages
    std::string what;       ///< "30000 tokens × 4 heads × 5 stages"
};

/// What `compute` will write: per layer and head the chosen n × n stages and the output.
OutputSize outputSize(const attn::SceneSpec& spec, const QStringList& stages) {
    const TokenCounts tokens = tokenCounts(spec);
    const double nq = double(tokens.queries), nk = double(tokens.keys);
    double heads = double(spec.heads), layers = 1, width = 0, scoreStages = 0;
    bool scores = true;
    if (spec.is_model()) {
        const attn::model::ModelInfo& c = spec.model->model->info();
        heads = double(c.heads), layers = double(c.layers);
        width = double(c.head_dim);
    } else if (spec.is_loaded()) {
        const auto& c = spec.data->components.at(std::size_t(spec.component));
        heads = double(c.heads), layers = double(c.layers);
        scores = c.are_scores;
    } else {
        width = double(spec.d_model) / std::max(1.0, heads);
    }
    for (const QString& s : stages)
        if (s != QLatin1StringView("output") && s != QLatin1StringView("softcapped") &&
            (scores || s == QLatin1StringView("weights")))
            ++scoreStages;  // softcapped left out: only a soft-capping model writes it
    const bool output = stages.contains(QStringLiteral("output")) && width > 0;
    OutputSize o;
    o.layerBytes = heads * nq * (nk * scoreStages + (output ? width : 0)) * 4;
    o.bytes = o.layerBytes * layers;
    const auto count = [](double v) { return std::to_string(static_cast<long long>(v)); };
    o.what = (nq == nk ? count(nq) + " tokens" : count(nq) + " × " + count(nk) + " tokens") +
             (layers > 1 ? " × " + count(layers) + " layers" : std::string()) + " × " +
             count(heads) + " heads × " + count(scoreStages + (output ? 1 : 0)) + " stages";
    return o;
}

/// Refuses a figure whose export would need more than the memory budget. Measured peaks (the
/// heads grid, the largest): a PNG holds its 4-byte device pixels and, per logical pixel, 8 bytes
/// of the plots' paint buffers; SVG and PDF (at 96 dpi whatever --dpi) embed every heatmap as an
/// image, encoded in memory: 16 and 25 bytes a logical pixel. Each with a margin of a byte or so.
void requireFigureMemory(const Request& request) {
    exporting::Format format{};
    exporting::formatFromPath(request.output, &format);
    const double logical = double(request.size.width()) * request.size.height();
    const double scale = request.dpi / 96.0;
    if (format == exporting::Format::Png) {
        attn::require_memory(4.5 * logical * scale * scale + 8.5 * logical,
                             tr("a %1 × %2 pixel image")
                                 .arg(qRound64(request.size.width() * scale))
                                 .arg(qRound64(request.size.height() * scale))
                                 .toStdString(),
                             "use a smaller --size or --dpi");
        return;
    }
    const bool svg = format == exporting::Format::Svg;
    attn::require_memory((svg ? 17.5 : 27) * logical,
                         tr("a %1 × %2 figure as %3")
                             .arg(request.size.width())
                             .arg(request.size.height())
                             .arg(svg ? QStringLiteral("SVG") : QStringLiteral("PDF"))
                             .toStdString(),
                         "use a smaller --size");
}

/// A mixture-of-experts run's routing (Mixtral): router_experts [L,n,k] (int32) and
/// router_weights [L,n,k]; nothing for a dense model.
void addRouterArrays(const attn::model::Run& run, attn::io::ResultStream& out) {
    if (run.layers.empty() || run.layers.front().router_experts.size() == 0) return;
    const auto& first = run.layers.front().router_experts;
    const std::vector<std::uint64_t> shape{run.layers.size(), std::uint64_t(first.rows()),
                                           std::uint64_t(first.cols())};
    std::vector<std::int32_t> experts;
    std::vector<float> weights;
    for (const attn::model::LayerAttention& l : run.layers) {
        experts.insert(experts.end(), l.router_experts.data(),
                       l.router_experts.data() + l.router_experts.size());
        weights.insert(weights.end(), l.router_weights.data(),
                       l.router_weights.data() + l.router_weights.size());
    }
    out.add_int_array("router_experts", std::move(experts), shape);
    out.add_array("router_weights", shape, std::move(weights));
}

}  // namespace

int runRender(const Request& request, QString* error) {
    SceneInput input;
    if (const int code = prepareScene(request, &input, error); code != kExitOk) return code;
    if (const int code = checkOutputFile(request, input, error); code != kExitOk) return code;
    Scene scene;
    scene.resetSpec(input.spec);
    if (request.head) {
        Selection s = scene.selection();
        s.head = *request.head;
        scene.setSelection(s);
    }
    // The figure's memory is estimated before anything is computed.
    try {
        requireFigureMemory(request);
    } catch (const attn::ResourceError& e) {
        *error = errorText(e, request.output);
        return kExitResource;
    }
    SceneResultPtr result;
    try {
        result = std::make_shared<const attn::SceneResult>(
            attn::compute_scene(scene.spec(), nullptr, ComputeService::storageFor(scene.spec())));
    } catch (const std::exception& e) {
        *error = computeErrorText(e, request, input);
        return computeErrorCode(e, input);
    }
    // Every view, not only the heads grid: a head past the last would be drawn as another. The
    // selected query follows, as the GUI opens on query 1 (the views that follow one need it).
    const int heads = static_cast<int>(result->heads.size());
    const int queries = static_cast<int>(result->q_tokens.size());
    for (const auto& [option, value, count, what] :
         {std::tuple{"head", request.head, heads, tr("heads")},
          std::tuple{"query", request.query, queries, tr("queries")}})
        if (value && *value >= count) {
            *error = tr("--%1: %2 is out of range (the scene has %3 %4: 0…%5)")
                         .arg(QLatin1StringView(option))
                         .arg(*value)
                         .arg(count)
                         .arg(what)
                         .arg(count - 1);
            return kExitUsage;
        }
    Selection selected = scene.selection();
    selected.query = request.query ? *request.query : std::min(1, queries - 1);
    scene.setSelection(selected);
    int code = kExitOk;
    std::unique_ptr<QWidget> view =
        createView(request, &scene, result, input.viewsJson, error, &code);
    if (!view) return code;
    exporting::Options options;
    exporting::formatFromPath(request.output, &options.format);
    options.size = request.size;
    options.dpi = request.dpi;
    *error = exporting::exportFigure(view.get(), request.output, options);
    return error->isEmpty() ? kExitOk : kExitOutput;
}

int runCompute(const Request& request, QString* error) {
    SceneInput input;
    if (const int code = prepareScene(request, &input, error); code != kExitOk) return code;
    if (const int code = checkOutputFile(request, input, error); code != kExitOk) return code;
    const std::string path = QFile::encodeName(request.output).toStdString();
    const bool json = request.output.endsWith(QLatin1StringView(".json"), Qt::CaseInsensitive);
    // The size of what will be written, checked against the free disk space (and, for JSON,
    // which is built in memory layer by layer, against the memory budget) before computing.
    try {
        const OutputSize size = outputSize(input.spec, request.stages);
        const std::string wayOut = "use --stages weights, fewer tokens or heads";
        attn::require_disk(size.bytes, path, size.what, wayOut);
        if (json)
            attn::require_memory(size.layerBytes * 6, size.what + " as JSON text",
                                 "write .npz, or " + wayOut);
    } catch (const std::exception& e) {
        *error = errorText(e, request.output);
        return computeErrorCode(e, input);
    }
    // Layer by layer: each layer's stages are written and freed before the next is computed, so
    // a 12-layer [12,12,1024,1024] tensor needs one layer's stages in memory, not twelve. A
    // computed long sequence is streamed: tile by tile of queries, nothing n × n in memory.
    std::optional<attn::io::ResultStream> out;
    const auto outputFailed = [&](const std::exception* e) {
        *error = e ? errorText(*e, request.output)
                   : tr("%1: not enough memory to write the result").arg(request.output);
        return e && dynamic_cast<const attn::ResourceError*>(e) ? kExitResource : kExitOutput;
    };
    try {
        out.emplace(path, static_cast<std::size_t>(attn::layer_count(input.spec)));
        std::vector<std::string> stages;
        for (const QString& s : request.stages)
            stages.push_back(s.toStdString());
        out->select_stages(std::move(stages));
    } catch (const std::exception& e) {
        return outputFailed(&e);
    }
    struct WriteFailed {};  // unwinds for_each_layer when the output, not the input, failed
    int code = kExitOk;
    attn::RolloutAccumulator rollout;
    std::shared_ptr<const attn::model::Run> run;  // a model scene's: token ids and logits
    const auto write = [&](attn::Index, const attn::SceneResult& r) {
        if (r.run) run = r.run;
        if (request.rollout) rollout.add(r);  // refuses cross-attention before writing
        try {
            out->add(r);
        } catch (const std::bad_alloc&) {
            code = outputFailed(nullptr);
            throw WriteFailed{};
        } catch (const std::exception& e) {
            code = outputFailed(&e);
            throw WriteFailed{};
        }
    };
    try {
        // A long computed scene is written tile by tile: nothing n × n in memory.
        if (input.spec.is_synthetic() && !json && !request.rollout &&
            ComputeService::storageFor(input.spec) != attn::Storage::Stages)
            write(0, attn::compute_scene(input.spec, nullptr, attn::Storage::Streamed));
        else
            attn::for_each_layer(input.spec, write);
    } catch (const WriteFailed&) {
        return code;
    } catch (const std::bad_alloc&) {
        *error = tr("not enough memory to compute this scene; use fewer tokens or heads");
        return kExitResource;
    } catch (const std::exception& e) {
        *error = computeErrorText(e, request, input);
        return computeErrorCode(e, input);
    }
    try {
        if (request.rollout)
            out->add_array("rollout", rolloutShape(rollout), rolloutValues(rollout));
        if (run) {
            out->add_int_array("token_ids", run->ids);
            out->add_array(
                "logits", {std::size_t(run->logits.size())},
                std::vector<float>(run->logits.data(), run->logits.data() + run->logits.size()));
            addRouterArrays(*run, *out);
        }
    } catch (const std::bad_alloc&) {
        return outputFailed(nullptr);
    } catch (const std::exception& e) {
        return outputFailed(&e);
    }
    // The lens and attribution of the run: a token outside the vocabulary is the user's.
    try {
        if (run) addInterventionArrays(request, *input.spec.model->model, *run, *out);
    } catch (const attn::ArgumentError& e) {
        *error = errorText(e, inputName(request));
        return kExitUsage;
    } catch (const std::exception& e) {
        return outputFailed(&e);
    }
    try {
        out->finish();
    } catch (const std::bad_alloc&) {
        return outputFailed(nullptr);
    } catch (const std::exception& e) {
        return outputFailed(&e);
    }
    return kExitOk;
}

}  // namespace cli
