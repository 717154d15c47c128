// AttnScope core — .npz members through libzip (see npz_members.hpp). GPL-3.0-or-later.
#include "npz_members.hpp"

#include "../zip/zip_entry.hpp"
#include "attn/util/memory_budget.hpp"

namespace attn::io::detail {

ZipPtr open_zip(std::span<const std::byte> bytes, const std::string& name) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) fail(name, std::string("cannot read the archive: ") + zip_error_strerror(&err));
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!z) {
        zip_source_free(src);
        const std::string why = zip_error_strerror(&err);
        zip_error_fini(&err);
        // libzip names no place: a directory entry pointing outside the file is told precisely.
        if (const auto problem = zip_entry_problem(bytes, name)) throw FormatError(*problem);
        fail(name, "not a valid .npz (zip) archive: " + why);
    }
    zip_error_fini(&err);
    return ZipPtr(z);
}

zip_stat_t checked_stat(zip_t* z, zip_uint64_t index, const std::string& where) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, index, 0, &st) != 0) fail(where, "cannot read the member's entry");
    if ((st.valid & ZIP_STAT_SIZE) == 0 || (st.valid & ZIP_STAT_COMP_SIZE) == 0)
        fail(where, "the member's size is unknown");
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        fail(where, "encrypted members are not supported");
    if ((st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method != ZIP_CM_STORE &&
        st.comp_method != ZIP_CM_DEFLATE)
        fail(where, "unsupported compression method " + std::to_string(st.comp_method) +
                        " (expected stored or deflated)");
    if (st.size > st.comp_size * kMaxDeflateRatio + 4096)
        fail(where, "claims " + detail::human_bytes(st.size) + " uncompressed from " +
                        detail::human_bytes(st.comp_size) + " of compressed data, impossible");
    return st;
}

std::vector<std::byte> read_member(zip_t* z, zip_uint64_t index, const std::string& where) {
    const zip_stat_t st = checked_stat(z, index, where);
    // The declared size is what will be allocated: a few kB of zeros can claim gigabytes.
    require_memory(double(st.size), where + " inflated into memory",
                   "use a smaller file or a larger --memory-budget");
    zip_file_t* f = zip_fopen_index(z, index, 0);
    if (!f) fail(where, std::string("cannot open the member: ") + zip_strerror(z));
    std::vector<std::byte> out;
    constexpr std::size_t kChunk = 1 << 20;
    for (;;) {
        const std::size_t old = out.size();
        if (old > st.size) break;
        out.resize(old + kChunk);
        const zip_int64_t got = zip_fread(f, out.data() + old, kChunk);
        if (got < 0) {
            const std::string why = zip_file_strerror(f);
            zip_fclose(f);
            fail(where, "corrupt data: " + why);
        }
        out.resize(old + static_cast<std::size_t>(got));
        if (got == 0) break;
    }
    zip_fclose(f);
    if (out.size() != st.size)
        fail(where, "holds " + std::to_string(out.size()) + " bytes but its entry claims " +
                        std::to_string(st.size));
    return out;
}

bool stored_member(zip_t* z, zip_uint64_t index, std::size_t archive, std::size_t* size) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, index, 0, &st) != 0) return false;
    const bool known = (st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_COMP_SIZE) &&
                       (st.valid & ZIP_STAT_COMP_METHOD);
    const bool plain =
        !(st.valid & ZIP_STAT_ENCRYPTION_METHOD) || st.encryption_method == ZIP_EM_NONE;
    if (!known || !plain || st.comp_method != ZIP_CM_STORE || st.size != st.comp_size ||
        st.comp_size > archive)
        return false;
    *size = static_cast<std::size_t>(st.size);
    return true;
}

}  // namespace attn::io::detail
