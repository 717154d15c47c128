// AttnScope core — where a member's bytes lie inside a zip archive, from its central directory
// entry and its local header (libzip reads members but does not tell their offset).
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace attn::io::detail {

/// A member's central directory entry, ZIP64 sizes and offset resolved.
struct ZipEntry {
    std::uint16_t flags = 0;       ///< general purpose flags (bit 0: encrypted)
    std::uint16_t method = 0;      ///< 0 stored, 8 deflated
    std::uint64_t compressed = 0;  ///< bytes of data in the archive
    std::uint64_t size = 0;        ///< bytes once uncompressed
    std::uint64_t header = 0;      ///< the local header's first byte
    std::uint64_t data = 0;        ///< the data's first byte (after the local header)
};

/// The entry of `member` in the archive (nullopt when there is none), its local header read
/// and checked: the same method, data that lies inside the archive. Throws FormatError
/// "<name>: <member>: …" naming the byte and the archive's size otherwise.
std::optional<ZipEntry> find_zip_entry(std::span<const std::byte> zip, std::string_view member,
                                       const std::string& name);

/// The first entry whose local header or data lies outside the archive, as the message
/// find_zip_entry would throw; nullopt when every entry is in place or there is no directory
/// (for an archive libzip refused without saying where).
std::optional<std::string> zip_entry_problem(std::span<const std::byte> zip,
                                             const std::string& name);

}  // namespace attn::io::detail
