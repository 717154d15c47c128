// AttnScope — the gradient attributions as a process, timed from outside beside the PyTorch
// anchor (attribute_torch_anchor.py) on the same weights file (llama_bench_tool writes it).
// GPL-3.0-or-later.
//   attribute_bench_tool saliency DIR [--tokens N]
//   attribute_bench_tool ig DIR [--tokens N] [--steps M]
//       opens DIR, explains the last of N seeded tokens (default 64) by saliency (and
//       input × gradient) or integrated gradients of M steps (default 32) as `attnscope
//       attribute --methods …` does (core's attribute_tokens), and prints the time, the peak
//       resident memory and a checksum. Targets (issue 39), Qwen2.5-0.5B-shaped: saliency
//       ≤ 1.0× PyTorch's forward + backward; IG ≤ 0.8× PyTorch's batched IG and ≤ 15 s;
//       saliency at 2048 tokens within 3 GB.
#include <sys/resource.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "attn/attribution/token_attribution.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"
#include "attn/util/heap.hpp"
#include "llama_bench_model.hpp"

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// The process's peak resident memory so far, MiB.
double peak_mib() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() < 2 || (args[0] != "saliency" && args[0] != "ig")) {
        std::cerr << "usage: attribute_bench_tool saliency|ig DIR [--tokens N] [--steps M]\n";
        return 2;
    }
    try {
        attn::keep_freed_blocks();  // as the application does
        int tokens = 64, steps = 32;
        for (std::size_t i = 2; i + 1 < args.size(); i += 2) {
            if (args[i] == "--tokens") tokens = std::max(1, std::stoi(args[i + 1]));
            if (args[i] == "--steps") steps = std::max(1, std::stoi(args[i + 1]));
        }
        auto t = std::chrono::steady_clock::now();
        const auto model = attn::llama::Model::open(args[1]);
        std::cout << "open_ms " << ms_since(t) << '\n';
        attn::attrib::AttributionRequest ask;
        ask.methods = args[0] == "ig" ? std::vector<std::string>{"integrated_gradients"}
                                      : std::vector<std::string>{"saliency", "input_x_gradient"};
        ask.steps = steps;
        t = std::chrono::steady_clock::now();
        const attn::attrib::AttributionResult r = attn::attrib::attribute_tokens(
            *model, llama_bench::ids(model->info().vocab, tokens), ask);
        std::cout << args[0] << "_ms " << ms_since(t) << '\n';
        double sum = 0;
        for (const float v : r.arrays.front().values)
            sum += double(v);
        std::cout << "target " << r.target << " logit " << r.logit << " " << r.arrays.front().name
                  << "_sum " << sum << '\n';
        std::cout << "peak_rss_mib " << peak_mib() << '\n';
    } catch (const attn::Error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
