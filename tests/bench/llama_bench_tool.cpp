// AttnScope — the Llama-family benchmarks as a process, timed from outside beside the PyTorch
// anchor (llama_torch_anchor.py) on the same weights file. GPL-3.0-or-later.
//   llama_bench_tool write qwen|llama DIR   writes the random model (once; kept if complete)
//   llama_bench_tool run DIR [--repeat N] [--retype]
//       opens DIR, runs 64 tokens N times (default 1) and prints each time in ms; --retype
//       then changes the last token and runs again reusing the unchanged prefix.
//   llama_bench_tool generate DIR [--repeat N] [--tokens T]
//       generates T tokens (default 64, sampled with top-k 40, no stop token) after a 16-token
//       prompt N times, each step reusing the earlier positions (the key–value cache); prints
//       wall and CPU ms. Target (issue 29), Qwen2.5-0.5B-shaped: ≤ 15 s.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>

#include "attn/generate/generate.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"
#include "attn/util/heap.hpp"
#include "llama_bench_model.hpp"

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// CPU milliseconds of the whole process so far (every thread): on a shared machine the wall
/// clock measures the neighbours too.
double cpu_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

void print(const char* what, std::vector<double> times) {
    std::cout << what;
    for (const double t : times)
        std::cout << ' ' << t;
    std::sort(times.begin(), times.end());
    std::cout << " median " << times[times.size() / 2] << '\n';
}

/// Generates TOKENS tokens after a 16-token prompt REPEAT times with the cache; prints the times.
void generate(const attn::model::Model& model, int repeat, int tokens) {
    const auto prompt = llama_bench::ids(model.info().vocab, 16);
    attn::gen::GenerateOptions o;
    o.tokens = tokens;
    o.stop_at_eos = false;
    o.sampling.greedy = false;
    o.sampling.top_k = 40;
    std::vector<double> times, cpu;
    std::size_t made = 0;
    for (int r = 0; r < repeat; ++r) {
        o.sampling.seed = std::uint64_t(r) + 1;  // another continuation each time
        const auto t = std::chrono::steady_clock::now();
        const double c0 = cpu_ms();
        attn::gen::Generation g = attn::gen::start(model, prompt, o.controls);
        while (!attn::gen::stop_after(model, g, o, std::nullopt))
            attn::gen::step(model, g, o);
        times.push_back(ms_since(t));
        cpu.push_back(cpu_ms() - c0);
        made = g.ids.size() - g.prompt;
        if (g.run->reused != Eigen::Index(g.ids.size()) - 1) throw attn::Error("no cache reuse");
    }
    std::cout << "generated " << made << '\n';
    print("generate_ms", times);
    print("generate_cpu_ms", cpu);
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 3 && args[0] == "write") {
            const auto shape = args[1] == "qwen"   ? llama_bench::qwen05()
                               : args[1] == "tiny" ? llama_bench::tiny()
                                                   : llama_bench::llama1b();
            std::cout << llama_bench::write(shape, args[2]) << " bytes\n";
            return 0;
        }
        if (args.size() < 2 || (args[0] != "run" && args[0] != "generate")) {
            std::cerr << "usage: llama_bench_tool write qwen|llama|tiny DIR | run DIR [--repeat N] "
                         "[--retype] | generate DIR [--repeat N] [--tokens T]\n";
            return 2;
        }
        attn::keep_freed_blocks();  // as the application does
        int repeat = 1, tokens = 64;
        bool retype = false;
        for (std::size_t i = 2; i < args.size(); ++i) {
            if (args[i] == "--repeat" && i + 1 < args.size())
                repeat = std::max(1, std::stoi(args[++i]));
            else if (args[i] == "--tokens" && i + 1 < args.size())
                tokens = std::max(0, std::stoi(args[++i]));
            else if (args[i] == "--retype")
                retype = true;
        }
        auto t = std::chrono::steady_clock::now();
        const auto model = attn::llama::Model::open(args[1]);
        std::cout << "open_ms " << ms_since(t) << '\n';
        if (args[0] == "generate") {
            generate(*model, repeat, tokens);
            return 0;
        }
        const auto ids = llama_bench::ids(model->info().vocab);
        std::vector<double> times, cpu;
        attn::model::Run first;
        for (int r = 0; r < repeat; ++r) {
            t = std::chrono::steady_clock::now();
            const double c0 = cpu_ms();
            first = attn::model::run(*model, ids);
            times.push_back(ms_since(t));
            cpu.push_back(cpu_ms() - c0);
        }
        print("forward_ms", times);
        print("forward_cpu_ms", cpu);
        if (retype) {
            auto changed = ids;
            changed.back() = (changed.back() + 1) % model->info().vocab;
            times.clear();
            cpu.clear();
            for (int r = 0; r < repeat; ++r) {
                t = std::chrono::steady_clock::now();
                const double c0 = cpu_ms();
                const auto again = attn::model::run(*model, changed, {}, nullptr, nullptr, &first);
                times.push_back(ms_since(t));
                cpu.push_back(cpu_ms() - c0);
                if (again.reused != Eigen::Index(ids.size()) - 1) throw attn::Error("no reuse");
            }
            print("retype_ms", times);
            print("retype_cpu_ms", cpu);
        }
        std::cout << "logit0 " << first.logits[0] << '\n';
    } catch (const attn::Error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
