// AttnScope core — writing .npz archives: through ZipWriter, the one zip writer (the
// compute stream uses it too). GPL-3.0-or-later.
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/io/zip/zip_writer.hpp"

namespace attn::io {

void write_npz(const std::string& path, const NpzMembers& members) {
    ZipWriter zip(path);
    for (const auto& [key, payload] : members)
        zip.add(key + ".npy", payload);
    zip.finish();
}

}  // namespace attn::io
