// AttnScope core — .npz archives through libzip: the in-memory stored writer.
// GPL-3.0-or-later.
#include <zip.h>

#include <string>
#include <vector>

#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

std::vector<std::byte> npz_bytes(const NpzMembers& members) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!src) throw Error("npz: cannot create an in-memory archive");
    zip_source_keep(src);
    zip_t* z = zip_open_from_source(src, ZIP_TRUNCATE, &err);
    if (!z) {
        zip_source_free(src);
        throw Error(std::string("npz: cannot create an archive: ") + zip_error_strerror(&err));
    }
    for (const auto& [key, payload] : members) {
        zip_source_t* m = zip_source_buffer(z, payload.data(), payload.size(), 0);
        const std::string member = key + ".npy";
        const zip_int64_t idx = m ? zip_file_add(z, member.c_str(), m, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (m) zip_source_free(m);
            zip_discard(z);
            zip_source_free(src);
            throw Error("npz: cannot add " + member);
        }
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) {
        zip_discard(z);
        zip_source_free(src);
        throw Error("npz: cannot finish the archive");
    }
    std::vector<std::byte> out;
    if (zip_source_open(src) == 0) {
        zip_source_seek(src, 0, SEEK_END);
        const zip_int64_t size = zip_source_tell(src);
        zip_source_seek(src, 0, SEEK_SET);
        out.resize(static_cast<std::size_t>(size > 0 ? size : 0));
        if (size > 0 && zip_source_read(src, out.data(), static_cast<zip_uint64_t>(size)) != size)
            out.clear();
        zip_source_close(src);
    }
    zip_source_free(src);
    if (out.empty()) throw Error("npz: cannot read back the archive");
    return out;
}

void write_npz(const std::string& path, const NpzMembers& members) {
    detail::write_whole_file(path, npz_bytes(members));
}

}  // namespace attn::io
