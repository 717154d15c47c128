// Loading a large attention tensor: a float32 [12,12,1024,1024] .npy (604 MB) written to a
// temporary directory. Reports the time to the first head's matrix (lazy NpyFile and the eager
// load_npy_attention the app uses) and the peak resident memory of a process that does only
// the load, as a multiple of the file size. Targets: first heatmap data within 2 s, peak RSS
// below 1.3× the file size. The file is freshly written, so it is read from the page cache.
// Also: the same load from a stored .npz, `compute` of every layer streamed to a .npz, and a
// long [4, 8192, 8192] raw-score file opened row by row (no conversion): from a .npy's map, from
// a stored .npz member's map, and from a deflated member inflated once to a temporary file.
// And a safetensors header of 25k to 200k tensors parsed (target: 200k in under 2 s).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <zip.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "../core/many_tensors.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/io/zip/zip_writer.hpp"
#include "attn/weights/safetensors.hpp"

namespace {

/// One iteration in milliseconds, timed by the benchmark itself (SetIterationTime): each case
/// reads or writes a gigabyte.
void onceTimedByHand(benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
}

constexpr std::uint64_t kL = 12, kH = 12, kN = 1024;

/// Writes the tensor once per process (rows are softmax-like weights) and removes it at exit.
struct BigFile {
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    BigFile() {
        path = std::filesystem::temp_directory_path() /
               ("attn_io_bench_" + std::to_string(::getpid()) + ".npy");
        std::string header =
            "{'descr': '<f4', 'fortran_order': False, 'shape': (12, 12, 1024, 1024), }";
        const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
        header.append(total - 10 - header.size() - 1, ' ');
        header += '\n';
        std::ofstream out(path, std::ios::binary);
        out.write("\x93NUMPY\x01\x00", 8);
        const char len[2] = {static_cast<char>(header.size() & 0xFF),
                             static_cast<char>(header.size() >> 8)};
        out.write(len, 2);
        out << header;
        std::vector<float> row(kN);
        for (std::uint64_t m = 0; m < kL * kH; ++m)
            for (std::uint64_t i = 0; i < kN; ++i) {
                float sum = 0;
                for (std::uint64_t j = 0; j < kN; ++j)
                    sum += row[j] = 1.f + static_cast<float>((i * 31 + j * 17 + m) % 97);
                for (auto& v : row)
                    v /= sum;
                out.write(reinterpret_cast<const char*>(row.data()), kN * 4);
            }
        out.close();
        bytes = std::filesystem::file_size(path);
    }
    ~BigFile() { std::filesystem::remove(path); }
};

BigFile& big() {
    static BigFile f;
    return f;
}

struct ChildResult {
    double seconds = 0;
    double cpu_seconds = 0;  ///< user + system time of the child (wall time suffers on a busy box)
    long peak_kb = 0;
};

/// Runs fn in a forked child so its peak RSS (ru_maxrss via wait4) belongs to the load alone.
template <typename F>
ChildResult in_child(F fn) {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (::write(fds[1], &s, sizeof s) != sizeof s) ::_exit(2);
        ::_exit(0);
    }
    ::close(fds[1]);
    ChildResult r;
    if (::read(fds[0], &r.seconds, sizeof r.seconds) != sizeof r.seconds) r.seconds = -1;
    ::close(fds[0]);
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    r.peak_kb = ru.ru_maxrss;
    r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    return r;
}

void report(benchmark::State& state, const ChildResult& r, std::uint64_t file_bytes = 0) {
    state.SetIterationTime(r.seconds);
    const double file_mb = static_cast<double>(file_bytes ? file_bytes : big().bytes) / 1e6;
    state.counters["file_MB"] = file_mb;
    state.counters["child_cpu_s"] = r.cpu_seconds;
    state.counters["peak_RSS_MB"] = static_cast<double>(r.peak_kb) * 1024 / 1e6;
    state.counters["RSS_over_file"] = static_cast<double>(r.peak_kb) * 1024 / 1e6 / file_mb;
}

/// Lazy: map the file, check the header, convert head (0, 0) only.
void BM_FirstHeadLazy(benchmark::State& state) {
    const std::string path = big().path.string();
    for (auto _ : state) {
        report(state, in_child([&] {
                   attn::io::NpyFile f(path);
                   attn::Matrix m = f.matrix(0);
                   benchmark::DoNotOptimize(m.data());
               }));
    }
}
BENCHMARK(BM_FirstHeadLazy)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

/// Eager: load every layer and head into AttentionData, then take the first head.
void BM_LoadAllThenFirstHead(benchmark::State& state) {
    const std::string path = big().path.string();
    for (auto _ : state) {
        report(state, in_child([&] {
                   const attn::AttentionData d = attn::io::load_npy_attention(path);
                   benchmark::DoNotOptimize(d.components[0].at(0, 0).data());
               }));
    }
}
BENCHMARK(BM_LoadAllThenFirstHead)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

/// A .npy file as the stored member "scores" of a .npz beside it, removed at exit.
struct StoredNpz {
    std::filesystem::path path;
    explicit StoredNpz(const std::filesystem::path& npy_path)
        : path(std::filesystem::path(npy_path).replace_extension(".npz")) {
        const attn::io::MappedFile npy(npy_path.string());
        attn::io::ZipWriter zip(path.string());
        const std::size_t member = zip.reserve("scores.npy", npy.size());
        constexpr std::size_t kPiece = 64 << 20;
        for (std::size_t at = 0; at < npy.size(); at += kPiece)
            zip.write(member, npy.bytes().subspan(at, std::min(kPiece, npy.size() - at)));
        zip.finish();
    }
    ~StoredNpz() { std::filesystem::remove(path); }
};

/// The same tensor as a stored .npz member ("scores"), written once per process next to it.
const std::string& big_npz() {
    static const StoredNpz npz(big().path);
    static const std::string s = npz.path.string();
    return s;
}

/// A stored .npz member is read in place like an .npy (its CRC checked on the way).
void BM_LoadAllFromStoredNpz(benchmark::State& state) {
    const std::string& path = big_npz();
    for (auto _ : state) {
        report(state, in_child([&] {
                   const attn::AttentionData d = attn::io::load_npz_attention(path);
                   benchmark::DoNotOptimize(d.components[0].at(0, 0).data());
               }));
    }
}
BENCHMARK(BM_LoadAllFromStoredNpz)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

/// `attnscope compute` on the tensor taken as raw scores: every stage of every layer (a 2.4 GB
/// .npz), written layer by layer, so the peak is the loaded tensor plus one layer's stages.
void BM_ComputeEveryLayerToNpz(benchmark::State& state) {
    const std::string path = big().path.string();
    const std::string out = std::filesystem::path(big().path).replace_extension(".out.npz");
    for (auto _ : state) {
        report(state, in_child([&] {
                   auto data =
                       std::make_shared<attn::AttentionData>(attn::io::load_npy_attention(path));
                   data->components[0].are_scores = true;
                   attn::SceneSpec spec;
                   spec.data = data;
                   const attn::Index layers = data->components[0].layers;
                   attn::io::ResultStream stream(out, static_cast<std::size_t>(layers));
                   for (attn::Index l = 0; l < layers; ++l) {
                       spec.layer = l;
                       stream.add(attn::compute_scene(spec));
                   }
                   stream.finish();
               }));
        std::filesystem::remove(out);
    }
}
BENCHMARK(BM_ComputeEveryLayerToNpz)->Apply(onceTimedByHand);

/// A long raw-score file, float32 [4, 8192, 8192] (1.07 GB), written once per process.
struct LongFile {
    static constexpr std::uint64_t kHeads = 4, kTokens = 8192;
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    LongFile() {
        path = std::filesystem::temp_directory_path() /
               ("attn_io_bench_long_" + std::to_string(::getpid()) + ".npy");
        const std::vector<std::uint64_t> shape{kHeads, kTokens, kTokens};
        const std::vector<std::byte> header = attn::io::npy_f4_header(shape);
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(header.data()),
                  static_cast<std::streamsize>(header.size()));
        std::vector<float> row(kTokens);
        for (std::uint64_t r = 0; r < kHeads * kTokens; ++r) {
            for (std::uint64_t j = 0; j < kTokens; ++j)
                row[j] = 0.05f * static_cast<float>((r * 31 + j * 17) % 97) - 2.4f;
            out.write(reinterpret_cast<const char*>(row.data()), kTokens * 4);
        }
        out.close();
        bytes = std::filesystem::file_size(path);
    }
    ~LongFile() { std::filesystem::remove(path); }
};

const LongFile& long_file() {
    static const LongFile file;
    return file;
}

/// The long file as the member "scores" of a deflated .npz (zlib level 1, through libzip).
struct DeflatedNpz {
    std::filesystem::path path;
    explicit DeflatedNpz(const std::filesystem::path& npy_path)
        : path(std::filesystem::path(npy_path).replace_extension(".deflated.npz")) {
        int err = 0;
        zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
        zip_source_t* src = z ? zip_source_file(z, npy_path.c_str(), 0, -1) : nullptr;
        const zip_int64_t i = src ? zip_file_add(z, "scores.npy", src, 0) : -1;
        if (i < 0 || zip_set_file_compression(z, zip_uint64_t(i), ZIP_CM_DEFLATE, 1) != 0 ||
            zip_close(z) != 0)
            std::abort();
    }
    ~DeflatedNpz() { std::filesystem::remove(path); }
};

/// Opens path as the app does (load, then the scene with a causal mask) in a child process.
void open_long(benchmark::State& state, const std::string& path, std::uint64_t file_bytes) {
    for (auto _ : state) {
        report(state, in_child([&] {
                   attn::SceneSpec spec;
                   spec.data =
                       std::make_shared<attn::AttentionData>(attn::io::load_attention(path));
                   spec.mask.kind = attn::MaskKind::Causal;
                   const attn::SceneResult r = attn::compute_scene(spec);
                   if (r.storage != attn::Storage::Streamed) ::_exit(3);
                   benchmark::DoNotOptimize(r.stats[0].entropy);
               }),
               file_bytes);
    }
}

/// Too large to convert (4 × 8192² cells > kWeightCellLimit), the .npy is read row by row from
/// its map into the block overview and row statistics, so the peak RSS stays a small fraction of
/// the file (converted, it would be the file plus two stages: about 3.2 GB).
void BM_OpenLongScoresMapped(benchmark::State& state) {
    open_long(state, long_file().path.string(), long_file().bytes);
}
BENCHMARK(BM_OpenLongScoresMapped)->Apply(onceTimedByHand);

/// The same tensor as a stored .npz member: mapped in place at the member's data offset.
void BM_OpenLongScoresStoredNpz(benchmark::State& state) {
    static const StoredNpz npz(long_file().path);
    open_long(state, npz.path.string(), std::filesystem::file_size(npz.path));
}
BENCHMARK(BM_OpenLongScoresStoredNpz)->Apply(onceTimedByHand);

/// A deflated member: inflated once, streaming, to an unlinked temporary file that is mapped;
/// file_MB is the (small) archive, the member inflates to 1.07 GB.
void BM_OpenLongScoresDeflatedNpz(benchmark::State& state) {
    static const DeflatedNpz npz(long_file().path);
    open_long(state, npz.path.string(), std::filesystem::file_size(npz.path));
}
BENCHMARK(BM_OpenLongScoresDeflatedNpz)->Apply(onceTimedByHand);

}  // namespace

/// Opening a .safetensors file whose header lists state.range(0) tiny tensors: the header's
/// parse and checks (a sharded checkpoint's shards list tens of thousands of names).
void BM_SafetensorsHeader(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("attn_io_bench_" + std::to_string(::getpid()) + ".safetensors"))
                                 .string();
    many_tensors::write(path, n);
    for (auto _ : state) {
        const attn::model::SafetensorsFile f(path);
        benchmark::DoNotOptimize(f.tensors().size());
    }
    std::filesystem::remove(path);
    state.counters["tensors"] = static_cast<double>(n);
}
BENCHMARK(BM_SafetensorsHeader)
    ->Arg(25000)
    ->Arg(50000)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
