// AttnScope core — stored zip members located through the central directory. GPL-3.0-or-later.
#include "zip_directory.hpp"

#include <algorithm>

namespace attn::io::detail {

namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50, kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr std::uint32_t kMax32 = 0xFFFFFFFFu;

/// Bounds-checked little-endian reads (the archive may be anything: this runs under a fuzzer).
struct Reader {
    std::span<const std::byte> b;
    bool has(std::uint64_t at, std::uint64_t n) const {
        return at <= b.size() && n <= b.size() - at;
    }
    std::uint64_t le(std::uint64_t at, int n) const {
        std::uint64_t v = 0;
        for (int i = n; i-- > 0;)
            v = (v << 8) | std::to_integer<std::uint64_t>(b[at + static_cast<std::uint64_t>(i)]);
        return v;
    }
};

/// The end of central directory record (searched back over the longest possible comment).
std::optional<std::uint64_t> find_end(const Reader& r) {
    if (r.b.size() < 22) return std::nullopt;
    const std::uint64_t last = r.b.size() - 22;
    const std::uint64_t first = last > 0xFFFF ? last - 0xFFFF : 0;
    for (std::uint64_t at = last + 1; at-- > first;)
        if (r.le(at, 4) == kEndSig) return at;
    return std::nullopt;
}

}  // namespace

std::map<std::string, std::uint64_t> zip_local_headers(std::span<const std::byte> archive) {
    const Reader r{archive};
    std::map<std::string, std::uint64_t> out;
    const std::optional<std::uint64_t> end = find_end(r);
    if (!end) return {};
    std::uint64_t entries = r.le(*end + 10, 2), cd = r.le(*end + 16, 4);
    if (entries == 0xFFFF || cd == kMax32 || r.le(*end + 12, 4) == kMax32) {
        if (*end < 20 || r.le(*end - 20, 4) != kLocator64Sig) return {};
        const std::uint64_t z = r.le(*end - 12, 8);
        if (!r.has(z, 56) || r.le(z, 4) != kEnd64Sig) return {};
        entries = r.le(z + 32, 8);
        cd = r.le(z + 48, 8);
    }
    std::uint64_t at = cd;
    for (std::uint64_t i = 0; i < entries; ++i) {
        if (!r.has(at, 46) || r.le(at, 4) != kCentralSig) return {};
        const std::uint64_t n = r.le(at + 28, 2), e = r.le(at + 30, 2), k = r.le(at + 32, 2);
        if (!r.has(at + 46, n + e + k)) return {};
        std::uint64_t offset = r.le(at + 42, 4);
        if (offset == kMax32) {  // in the zip64 extra field, after any overflowed sizes
            std::uint64_t skip =
                (r.le(at + 24, 4) == kMax32 ? 8 : 0) + (r.le(at + 20, 4) == kMax32 ? 8 : 0);
            bool found = false;
            for (std::uint64_t x = at + 46 + n; x + 4 <= at + 46 + n + e;) {
                const std::uint64_t id = r.le(x, 2), len = r.le(x + 2, 2);
                if (x + 4 + len > at + 46 + n + e) break;
                if (id == 1 && len >= skip + 8) {
                    offset = r.le(x + 4 + skip, 8);
                    found = true;
                    break;
                }
                x += 4 + len;
            }
            if (!found) return {};
        }
        const auto* name = reinterpret_cast<const char*>(archive.data() + at + 46);
        if (!out.emplace(std::string(name, n), offset).second) return {};
        at += 46 + n + e + k;
    }
    return out;
}

std::optional<std::span<const std::byte>> zip_stored_data(std::span<const std::byte> archive,
                                                          std::uint64_t offset,
                                                          const std::string& name,
                                                          std::uint64_t size) {
    const Reader r{archive};
    if (!r.has(offset, 30) || r.le(offset, 4) != kLocalSig) return std::nullopt;
    const std::uint64_t n = r.le(offset + 26, 2), e = r.le(offset + 28, 2);
    if (n != name.size() || !r.has(offset + 30, n + e)) return std::nullopt;
    const auto* local = reinterpret_cast<const char*>(archive.data() + offset + 30);
    if (!std::equal(name.begin(), name.end(), local)) return std::nullopt;
    const std::uint64_t data = offset + 30 + n + e;
    if (!r.has(data, size)) return std::nullopt;
    return archive.subspan(static_cast<std::size_t>(data), static_cast<std::size_t>(size));
}

}  // namespace attn::io::detail
