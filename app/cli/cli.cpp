// AttnScope — the headless command line: `attnscope render|compute …`. GPL-3.0-or-later.
#include "cli/cli.hpp"

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>
#include <QTextStream>
#include <cstdio>
#include <new>

#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "cli/attribute_command.hpp"
#include "cli/batch_command.hpp"
#include "cli/census_command.hpp"
#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/generate_command.hpp"
#include "cli/option_values.hpp"
#include "cli/patch_command.hpp"
#include "cli/render_command.hpp"
#include "cli/seq2seq_attribute_command.hpp"
#include "cli/seq2seq_command.hpp"

namespace cli {
namespace {

/// The offscreen platform reports, as warnings, things a headless run cannot have (no runtime
/// directory, no window manager to take size hints); they are noise on a command line's stderr.
QtMessageHandler previousHandler = nullptr;
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtWarningMsg && (message.contains(QLatin1StringView("propagateSizeHints")) ||
                                 message.contains(QLatin1StringView("XDG_RUNTIME_DIR"))))
        return;
    if (previousHandler) previousHandler(type, context, message);
}

bool isSubcommand(const char* arg) {
    const QByteArray a(arg);
    return a == "render" || a == "compute" || a == "census" || a == "patch" || a == "generate" ||
           a == "batch" || a == "merge" || a == "attribute" || a == "translate" || a == "help" ||
           a == "--help" || a == "-h" || a == "--version" || a == "-v";
}

/// Qt's own options that take a value (-platform offscreen, -display :1), with one dash or two.
bool isQtValueOption(const QByteArray& arg) {
    const QByteArray name = arg.startsWith("--") ? arg.mid(1) : arg;
    return name == "-platform" || name == "-display";
}

/// Whether the window could open: Qt aborts when its platform has no display to connect to.
/// The platform is -platform's, else QT_QPA_PLATFORM's; X11's display -display's or DISPLAY.
bool hasDisplay(int argc, char** argv) {
    QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    bool x = !qEnvironmentVariableIsEmpty("DISPLAY");
    const bool wayland = !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    for (int i = 1; i + 1 < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (!isQtValueOption(arg)) continue;
        if (arg.endsWith("platform")) platform = argv[i + 1];
        if (arg.endsWith("display")) x = true;
    }
    if (platform.isEmpty()) return x || wayland;
    if (platform.startsWith("xcb")) return x;
    if (platform.startsWith("wayland")) return wayland;
    return true;  // offscreen, vnc, eglfs…: no display needed
}

/// Without a display, what the window would have been asked for, as a message: a first word
/// that is neither a command nor a file is most likely a mistyped command.
QString noDisplayMessage(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QString arg = QFile::decodeName(argv[i]);
        if (isQtValueOption(QByteArray(argv[i]))) ++i;  // and its value
        if (arg.startsWith(QLatin1Char('-')) || QFileInfo::exists(arg)) continue;
        return tr("no such file or command '%1' (the commands are render, compute, census, "
                  "patch, generate, translate, batch, merge and attribute; see 'attnscope --help')")
            .arg(arg);
    }
    return tr(
        "no display to open the window on (DISPLAY is not set); the commands render, "
        "compute, census, patch, generate, translate, batch, merge and attribute run without one "
        "(see "
        "'attnscope --help')");
}

}  // namespace

int run(const QStringList& arguments, QTextStream& out, QTextStream& err) {
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("patch"))
        return isSeq2SeqCompute(arguments) ? runSeq2SeqPatch(arguments, err)
                                           : runPatch(arguments, err);
    // batch and merge run datasets and shards, not a scene: their own parsers.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("batch"))
        return runBatch(arguments, err);
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("merge"))
        return runMerge(arguments, err);
    // generate has options of its own (a model's run, not a scene): its own parser.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("generate"))
        return runGenerate(arguments, out, err);
    // Encoder–decoders (translate, compute --target) run a source and a target, not a scene.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("translate"))
        return runTranslate(arguments, err);
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("compute") &&
        isSeq2SeqCompute(arguments))
        return runSeq2SeqCompute(arguments, err);
    if (arguments.size() > 1 && arguments.at(1) == QLatin1StringView("attribute") &&
        isSeq2SeqAttribute(arguments))
        return runSeq2SeqAttribute(arguments, err);
    QString error;
    std::optional<Request> request;
    try {
        request = parseRequest(arguments, &error);
    } catch (const attn::ResourceError& e) {  // an option sized beyond the budget (--pad)
        err << "attnscope: " << QString::fromUtf8(e.what()) << "\n";
        err.flush();
        return kExitResource;
    }
    if (!request) {
        err << "attnscope: " << error << "\n"
            << "Try 'attnscope --help'.\n";
        err.flush();
        return kExitUsage;
    }
    int code = kExitOk;
    try {
        switch (request->command) {
            case Request::Command::Help:
                out << helpText();
                break;
            case Request::Command::Version:
                out << "attnscope " << QStringLiteral(ATTNSCOPE_VERSION) << "\n";
                break;
            case Request::Command::Render:
                code = runRender(*request, &error);
                break;
            case Request::Command::Compute:
                code = runCompute(*request, &error);
                break;
            case Request::Command::Census:
                code = runCensus(*request, &error);
                break;
            case Request::Command::Attribute:
                code = runAttribute(*request, &error);
                break;
        }
    } catch (const std::bad_alloc&) {
        // Every large allocation is estimated first; this is the net under what was not.
        error = tr("not enough memory for this request (budget %1); use fewer tokens or heads, "
                   "or a smaller --size")
                    .arg(QString::fromStdString(attn::format_bytes(double(attn::memory_budget()))));
        code = kExitResource;
    } catch (const attn::ResourceError& e) {
        error = QString::fromUtf8(e.what());
        code = kExitResource;
    }
    out.flush();
    if (code != kExitOk) {
        err << "attnscope: " << error << "\n";
        err.flush();
    }
    return code;
}

int guardUnexpected(const std::function<int()>& body, QTextStream& err) {
    QString what;
    try {
        return body();
    } catch (const attn::Error& e) {  // AttnScope's own sentence, only not expected here
        what = QString::fromUtf8(e.what());
    } catch (const std::bad_alloc&) {
        what = tr("out of memory");
    } catch (...) {
        // A standard library's text names its internals, not the user's problem.
        what = tr("an unexpected error");
    }
    err << "attnscope: internal error: " << what
        << tr(" stopped the program. Please report the command or the steps that "
              "led here.")
        << "\n";
    err.flush();
    return kExitInternal;
}

namespace {

/// ARGV as the command line gave it. QCoreApplication::arguments() decodes each one as
/// QString::fromLocal8Bit does, which drops a leading byte order mark: `--text` would lose a
/// U+FEFF that Hugging Face's tokenizers encode (as three bytes, in GPT-2's byte-level BPE).
QStringList argumentsAsGiven(int argc, char** argv) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i) {
        QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
        arguments << QString(utf8(QByteArrayView(argv[i])));
    }
    return arguments;
}

}  // namespace

std::optional<int> dispatch(int argc, char** argv) {
    if (argc < 2 || !isSubcommand(argv[1])) {
        if (hasDisplay(argc, argv)) return std::nullopt;  // the window
        std::fprintf(stderr, "attnscope: %s\n", noDisplayMessage(argc, argv).toUtf8().constData());
        return kExitUsage;
    }
    // Qt decodes arguments as UTF-8 and replaces what is not; refuse such bytes while they
    // can still be named.
    if (const QString bad = invalidUtf8Argument(argc, argv); !bad.isEmpty()) {
        std::fprintf(stderr, "attnscope: %s\n", bad.toUtf8().constData());
        return kExitUsage;
    }
    // Headless by design: render and compute never need a display. An explicit
    // QT_QPA_PLATFORM (e.g. xcb for debugging) is respected.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    previousHandler = qInstallMessageHandler(quietHandler);
    QApplication app(argc, argv);  // takes Qt's own options (-platform …) out of argv
    QTextStream out(stdout), err(stderr);
    return run(argumentsAsGiven(argc, argv), out, err);
}

}  // namespace cli
