// AttnScope — a parsed `attnscope render|compute …` command line. GPL-3.0-or-later.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

#include "attn/attribution/token_attribution.hpp"
#include "attn/models/seq2seq.hpp"
#include "attn/scene/scene.hpp"

namespace cli {

/// Everything a subcommand needs, fully validated except what depends on the input file.
struct Request {
    enum class Command {
        Render,
        Compute,
        Census,
        Attribute,
        Help,
        Version
    } command = Command::Help;
    QString file;   ///< input file; empty: the default scene
    QString model;  ///< --model DIR: a GPT-2 folder run on the --text sentence instead of a file
    std::vector<int> modelLayers;  ///< --layers: where the controls apply in the run (empty: all)
    attn::model::Interventions interventions;  ///< --ablate, --ablate-mode, --knockout
    /// --ablate, --ablate-mode and --knockout of an encoder–decoder's sites (PART.L.H).
    attn::model::Seq2SeqControls seq2seq;
    bool logitLens = false;                 ///< compute --logit-lens
    std::optional<std::int32_t> attribute;  ///< compute --attribute ID
    bool induction = false;                 ///< census --induction
    QString corrupt;                        ///< render --view patching --corrupt TEXT
    QString target;  ///< render --target: an encoder–decoder's target (none: its translation)
    std::int32_t answer = 0, wrong = 0;            ///< render --view patching --answer, --wrong
    attn::attrib::AttributionRequest attribution;  ///< attribute's options (not its controls)
    QString output;                                ///< -o
    bool force = false;                            ///< --force: replace a read-only -o
    QString view = QStringLiteral("heads");        ///< heads | model | playground | lens:NAME | …
    bool rollout = false;                          ///< compute: add the attention rollout
    std::optional<int> layer, head, query;
    QString component;  ///< by name, or by index
    QSize size{1200, 900};
    double dpi = 96;
    QString colorMap;          ///< viridis | magma | cividis | greys (empty: default)
    attn::SceneSpec spec;      ///< the scene options, applied on the default scene
    QStringList sceneArgs;     ///< the scene options again, re-applied after loading a file
    QStringList given;         ///< the names of the options given (as the parser read them)
    quint64 memoryBudget = 0;  ///< --memory-budget in bytes (0: half the physical memory)
    /// compute --stages: raw, scaled, softcapped, masked, weights, output (default: all;
    /// softcapped is written only when a layer soft-caps or adds a position bias)
    QStringList stages{QStringLiteral("raw"),        QStringLiteral("scaled"),
                       QStringLiteral("softcapped"), QStringLiteral("masked"),
                       QStringLiteral("weights"),    QStringLiteral("output")};
};

/// Parses argv (argv[0] is the program, argv[1] the subcommand). On a usage error returns
/// nullopt and sets *error to a one-line message.
std::optional<Request> parseRequest(const QStringList& arguments, QString* error);

/// Applies the scene options of `request` (as typed) on top of `spec`; empty string when fine.
QString reapplySceneOptions(const Request& request, attn::SceneSpec& spec);

/// The options of `request` that describe a computed scene (--heads, --score, …) and so have
/// no meaning for loaded attention data or a model's run, joined as "--heads, --score"; empty
/// when none was given. `model`: also those a model's run ignores (--dk, --cross-text).
QString inapplicableOptions(const Request& request, bool model);

/// The names `render --view` accepts besides lens:NAME.
QStringList viewNames();

/// Full --help text.
QString helpText();

}  // namespace cli
