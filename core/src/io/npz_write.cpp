// AttnScope core — writing .npz archives: through ZipWriter, the one zip writer (the
// compute stream uses it too). GPL-3.0-or-later.
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "attn/io/numpy_attention.hpp"
#include "attn/io/zip_writer.hpp"
#include "io_util.hpp"

namespace attn::io {

void write_npz(const std::string& path, const NpzMembers& members) {
    ZipWriter zip(path);
    for (const auto& [key, payload] : members)
        zip.add(key + ".npy", payload);
    zip.finish();
}

std::vector<std::byte> npz_bytes(const NpzMembers& members) {
    // In memory is the same archive written to a private temporary file and read back, so
    // there is one writer of the format.
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("attnscope-npz-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".npz");
    write_npz(path.string(), members);
    std::vector<std::byte> bytes = detail::read_whole_file(path.string());
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return bytes;
}

}  // namespace attn::io
