// AttnScope core — a member's data offset from the zip central directory and local header
// (APPNOTE 6.3: end of central directory, ZIP64 locator and record, ZIP64 extra field).
// GPL-3.0-or-later.
#include "zip_entry.hpp"

#include <algorithm>

#include "../../files/io_util.hpp"
#include "zip_format.hpp"

namespace attn::io::detail {

namespace {

using namespace zip_format;

/// Little-endian unsigned of `bytes` bytes at p.
std::uint64_t zip_le(const std::byte* p, int bytes) {
    std::uint64_t v = 0;
    for (int k = bytes; k-- > 0;)
        v = v << 8 | std::to_integer<std::uint64_t>(p[k]);
    return v;
}

struct Directory {
    std::uint64_t offset = 0, size = 0, entries = 0;
};

Directory directory(std::span<const std::byte> zip, const std::string& name) {
    const std::uint64_t n = zip.size();
    if (n < 22) fail(name, "too short for a zip archive (" + std::to_string(n) + " bytes)");
    // The end record is the last 22 bytes, unless an archive comment (≤ 64 KiB) follows it.
    std::uint64_t end = n - 22;
    const std::uint64_t lowest = n - 22 - std::min<std::uint64_t>(n - 22, 0xFFFF);
    while (zip_le(zip.data() + end, 4) != kEndSig ||
           end + 22 + zip_le(zip.data() + end + 20, 2) != n) {
        if (end == lowest) fail(name, "no zip end of central directory record");
        --end;
    }
    const std::byte* e = zip.data() + end;
    Directory d{zip_le(e + 16, 4), zip_le(e + 12, 4), zip_le(e + 10, 2)};
    if (d.offset == kMax32 || d.size == kMax32 || d.entries == 0xFFFF) {
        const std::uint64_t at = end >= 20 ? zip_le(e - 20 + 8, 8) : n;
        if (end < 20 || zip_le(e - 20, 4) != kLocator64Sig || n < 56 || at > n - 56 ||
            zip_le(zip.data() + at, 4) != kEnd64Sig)
            fail(name,
                 "the ZIP64 end of central directory record is missing or past the end of "
                 "the file (" +
                     std::to_string(n) + " bytes)");
        const std::byte* z = zip.data() + at;
        d = {zip_le(z + 48, 8), zip_le(z + 40, 8), zip_le(z + 32, 8)};
    }
    if (d.offset > n || d.size > n - d.offset)
        fail(name, "the central directory (" + std::to_string(d.size) + " bytes at byte " +
                       std::to_string(d.offset) + ") runs past the end of the file (" +
                       std::to_string(n) + " bytes)");
    return d;
}

/// The ZIP64 extra field replaces, in this order, each of size, compressed size and header
/// offset whose 32-bit field holds 0xFFFFFFFF.
void read_zip64(const std::byte* extra, std::uint64_t length, ZipEntry& e,
                const std::string& where) {
    for (std::uint64_t p = 0; p + 4 <= length;) {
        const std::uint64_t id = zip_le(extra + p, 2), len = zip_le(extra + p + 2, 2);
        if (p + 4 + len > length) fail(where, "its extra field runs past its end");
        if (id == 1) {
            std::uint64_t q = p + 4;
            for (std::uint64_t* field : {&e.size, &e.compressed, &e.header}) {
                if (*field != kMax32) continue;
                if (q + 8 > p + 4 + len) fail(where, "its ZIP64 extra field is too short");
                *field = zip_le(extra + q, 8);
                q += 8;
            }
        }
        p += 4 + len;
    }
}

}  // namespace

namespace {

/// Reads every central directory entry in order, its local header checked, until visit(name,
/// entry) returns true; returns whether it did.
template <class Visit>
bool walk_entries(std::span<const std::byte> zip, const std::string& name, Visit&& visit) {
    const Directory d = directory(zip, name);
    const std::uint64_t n = zip.size(), end = d.offset + d.size;
    std::uint64_t p = d.offset;
    for (std::uint64_t k = 0; k < d.entries; ++k) {
        if (p + 46 > end || zip_le(zip.data() + p, 4) != kCentralSig)
            fail(name, "malformed central directory entry at byte " + std::to_string(p));
        const std::byte* c = zip.data() + p;
        const std::uint64_t name_len = zip_le(c + 28, 2), extra_len = zip_le(c + 30, 2),
                            comment_len = zip_le(c + 32, 2);
        if (p + 46 + name_len + extra_len + comment_len > end)
            fail(name, "central directory entry at byte " + std::to_string(p) +
                           " runs past the directory's end");
        const std::string_view member(reinterpret_cast<const char*>(c + 46), name_len);
        const std::string where = name + ": " + std::string(member);
        ZipEntry e;
        e.flags = static_cast<std::uint16_t>(zip_le(c + 8, 2));
        e.method = static_cast<std::uint16_t>(zip_le(c + 10, 2));
        e.compressed = zip_le(c + 20, 4);
        e.size = zip_le(c + 24, 4);
        e.header = zip_le(c + 42, 4);
        read_zip64(c + 46 + name_len, extra_len, e, where);
        if (e.header > n || n - e.header < 30)
            fail(where, "its local header at byte " + std::to_string(e.header) +
                            " lies past the end of the file (" + std::to_string(n) + " bytes)");
        const std::byte* h = zip.data() + e.header;
        if (zip_le(h, 4) != kLocalSig)
            fail(where, "no local header at byte " + std::to_string(e.header));
        if (zip_le(h + 8, 2) != e.method)
            fail(where, "its local header names compression method " +
                            std::to_string(zip_le(h + 8, 2)) + " but the directory " +
                            std::to_string(e.method));
        // The local header's own name and extra lengths, which may differ from the directory's.
        e.data = e.header + 30 + zip_le(h + 26, 2) + zip_le(h + 28, 2);
        if (e.data > n || e.compressed > n - e.data)
            fail(where, "its data (" + std::to_string(e.compressed) + " bytes at byte " +
                            std::to_string(e.data) + ") runs past the end of the file (" +
                            std::to_string(n) + " bytes)");
        if (visit(member, e)) return true;
        p += 46 + name_len + extra_len + comment_len;
    }
    return false;
}

}  // namespace

std::optional<ZipEntry> find_zip_entry(std::span<const std::byte> zip, std::string_view member,
                                       const std::string& name) {
    std::optional<ZipEntry> found;
    walk_entries(zip, name, [&](std::string_view entry, const ZipEntry& e) {
        if (entry == member) found = e;
        return found.has_value();
    });
    return found;
}

std::optional<std::string> zip_entry_problem(std::span<const std::byte> zip,
                                             const std::string& name) {
    try {
        directory(zip, name);
    } catch (const FormatError&) {
        return std::nullopt;  // no directory to speak of: libzip's own words are as good
    }
    try {
        walk_entries(zip, name, [](std::string_view, const ZipEntry&) { return false; });
    } catch (const FormatError& e) {
        return e.what();
    }
    return std::nullopt;
}

}  // namespace attn::io::detail
