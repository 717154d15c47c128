// AttnScope core — a long .npz member read row by row: a stored member in place from the
// archive's map, a deflated one from a temporary file it is inflated to once. GPL-3.0-or-later.
#include <array>
#include <vector>

#include "../../files/temp_file.hpp"
#include "../zip/zip_entry.hpp"
#include "npz_members.hpp"

namespace attn::io::detail {

namespace {

/// Closes a libzip member at scope exit.
struct MemberCloser {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};

/// Up to `want` bytes of the member (fewer only at its end); corrupt data throws.
std::size_t read_some(zip_file_t* f, std::byte* out, std::size_t want, const std::string& where) {
    std::size_t got = 0;
    while (got < want) {
        const zip_int64_t n = zip_fread(f, out + got, want - got);
        if (n < 0) fail(where, std::string("corrupt data: ") + zip_file_strerror(f));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

std::optional<MappedArray> stored(const zip_stat_t& st,
                                  const std::shared_ptr<const MappedFile>& archive,
                                  const std::string& member, const std::string& name,
                                  const std::string& where) {
    const std::optional<ZipEntry> e = find_zip_entry(archive->bytes(), member, name);
    if (!e) return std::nullopt;  // libzip's name differs from the stored one: read as before
    if (e->compressed != e->size || e->size != st.size)
        fail(where, "a stored member of " + std::to_string(e->size) + " bytes holds " +
                        std::to_string(e->compressed) + " bytes of data");
    const auto size = static_cast<std::size_t>(e->size);
    const auto begin = static_cast<std::size_t>(e->data);
    // The header alone decides; then the member's size is checked against it.
    const NpyHeader h = parse_npy_header_only(archive->bytes().subspan(begin, size), where);
    if (!is_long_tensor(h)) return std::nullopt;
    return mapped_array(archive, begin, size, where);
}

std::optional<MappedArray> deflated(zip_t* z, zip_uint64_t index, const zip_stat_t& st,
                                    const std::shared_ptr<const MappedFile>& archive,
                                    const std::string& where, Progress* progress) {
    std::unique_ptr<zip_file_t, MemberCloser> f(zip_fopen_index(z, index, 0));
    if (!f) fail(where, std::string("cannot open the member: ") + zip_strerror(z));
    const std::uint64_t size = st.size;
    std::vector<std::byte> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 1 << 16)));
    head.resize(read_some(f.get(), head.data(), head.size(), where));
    NpyHeader h;
    try {
        h = parse_npy_header_only(head, where);
    } catch (const FormatError&) {
        return std::nullopt;  // the converting path reads it whole and explains what is wrong
    }
    if (!is_long_tensor(h)) return std::nullopt;
    check_npy_size(h, size, where);
    const std::string what = where + " inflated to a temporary file";
    auto file = mapped_temp_file(size, what, [&](int fd) {
        write_at(fd, head.data(), head.size(), 0, what);
        report(progress, static_cast<double>(head.size()) / static_cast<double>(size));
        std::vector<std::byte> buf(1 << 20);
        std::uint64_t done = head.size();
        while (done < size) {
            const std::size_t want =
                static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - done));
            const std::size_t got = read_some(f.get(), buf.data(), want, where);
            if (got == 0)
                fail(where, "holds " + std::to_string(done) + " bytes but its entry claims " +
                                std::to_string(size));
            write_at(fd, buf.data(), got, done, what);
            done += got;
            // The archive's pages were read only to be inflated: out of this process's memory
            // (every 16 MiB inflated, as StreamedMember does).
            if (done % (16 << 20) < got) archive->release(0, archive->size());
            report(progress, static_cast<double>(done) / static_cast<double>(size));
        }
        // One more byte: libzip checks the CRC at the member's end.
        std::array<std::byte, 1> extra{};
        if (read_some(f.get(), extra.data(), 1, where) > 0)
            fail(where, "holds more bytes than its entry claims (" + std::to_string(size) + ")");
    });
    return mapped_array(std::move(file), 0, static_cast<std::size_t>(size), where);
}

}  // namespace

std::optional<MappedArray> long_member(zip_t* z, zip_uint64_t index,
                                       const std::shared_ptr<const MappedFile>& archive,
                                       const std::string& member, const std::string& name,
                                       Progress* progress) {
    const std::string where = name + ": " + member;
    const zip_stat_t st = checked_stat(z, index, where);
    if (!(st.valid & ZIP_STAT_COMP_METHOD)) return std::nullopt;
    if (st.comp_method == ZIP_CM_STORE) return stored(st, archive, member, name, where);
    return deflated(z, index, st, archive, where, progress);
}

}  // namespace attn::io::detail
