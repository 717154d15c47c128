// AttnScope core — a stored (uncompressed) .zip/.npz written straight to disk, member data
// streamed in pieces, so an archive larger than memory never has to exist in memory.
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "attn/files/output_file.hpp"

namespace attn::io {

/// Writes a stored zip archive to a unique temporary file next to `path` (an OutputFile) and
/// renames it into place on finish(); destroyed unfinished, it removes the temporary file. Every
/// member's size is declared when it is reserved, so members can be filled in any interleaving
/// (each one front to back): `attnscope compute` fills the [L,H,…] stage arrays one layer at a
/// time. The headers match libzip's for stored members (zip64 fields only where a size or offset
/// needs them). Move-only.
class ZipWriter {
  public:
    /// Sizes and offsets from this value on are written as zip64 (tests lower it).
    static constexpr std::uint64_t kZip64Limit = std::numeric_limits<std::uint32_t>::max();

    /// Creates the temporary file; throws Error "<path>: cannot write: <why>" on failure.
    explicit ZipWriter(std::string path, std::uint64_t zip64_limit = kZip64Limit);
    ~ZipWriter();
    ZipWriter(ZipWriter&& other) noexcept;
    ZipWriter& operator=(ZipWriter&&) = delete;
    ZipWriter(const ZipWriter&) = delete;
    ZipWriter& operator=(const ZipWriter&) = delete;

    /// Declares the next member (name, exact size in bytes); returns its index for write().
    std::size_t reserve(const std::string& name, std::uint64_t size);
    /// Appends bytes to member `index`; throws Error when they go past its declared size.
    void write(std::size_t index, std::span<const std::byte> bytes);
    /// Dates every member DOS_DATE, DOS_TIME (MS-DOS format) instead of now: a reproducible
    /// archive, the same bytes whenever the same members are written (attnscope batch).
    void set_date(std::uint16_t dos_date, std::uint16_t dos_time) {
        dos_date_ = dos_date;
        dos_time_ = dos_time;
    }
    /// reserve() and write() of a whole member.
    void add(const std::string& name, std::span<const std::byte> bytes);
    /// Checks every member is complete, writes the headers and the central directory, and
    /// renames the file into place; throws Error on failure.
    void finish();

  private:
    struct Member {
        std::string name;
        std::uint64_t size = 0;
        std::uint64_t header_offset = 0;  ///< local file header
        std::uint64_t written = 0;
        std::uint32_t crc = 0;
    };
    std::uint64_t local_header_size(const Member& m) const;
    std::vector<std::byte> local_header(const Member& m) const;
    std::vector<std::byte> central_directory(std::uint64_t cd_offset) const;
    void put(std::uint64_t offset, std::span<const std::byte> bytes);
    [[noreturn]] void io_failure(const std::string& what);

    std::string path_;
    OutputFile file_;
    std::uint64_t zip64_limit_;
    bool finished_ = false;
    std::uint64_t end_ = 0;  ///< first byte after the reserved members
    std::uint16_t dos_time_ = 0, dos_date_ = 0;
    std::vector<Member> members_;
};

}  // namespace attn::io
