// AttnScope core — the memory budget: every large allocation is estimated against it first.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attn {

/// Physical memory of this machine in bytes (0 when unknown).
std::uint64_t physical_memory();

/// Half of the memory the process may use: physical memory, or the address-space limit
/// (ulimit -v) when that is smaller; 2 GB when neither is known.
std::uint64_t default_memory_budget();

/// The process-wide budget every estimate is checked against (default_memory_budget() unless
/// set_memory_budget was called).
std::uint64_t memory_budget();

/// Sets the process-wide budget in bytes; 0 restores the default.
void set_memory_budget(std::uint64_t bytes);

/// A size in decimal units, as RAM and disks are sold: "950 B", "12 kB", "1.2 GB", "72 GB".
std::string format_bytes(double bytes);

/// Parses a decimal size of at least one byte: "12G", "12GB", "512M", "1.5 GiB", "300000000"
/// (bytes); throws ArgumentError for anything else ("0.5", "0x10", "1e9", "nan").
std::uint64_t parse_bytes(std::string_view text);

/// Throws ResourceError "<what> = <size>, more than the <budget> memory budget; <way_out>" when
/// bytes exceeds memory_budget(); nothing is allocated either way.
void require_memory(double bytes, const std::string& what, const std::string& way_out);

/// Free and total bytes of a file system.
struct DiskSpace {
    double free = 0, total = 0;
};
/// How free space is found (statvfs by default); false when the directory has no answer.
using DiskSpaceQuery = bool (*)(const std::string& dir, DiskSpace& out);
/// Test hook: replaces the query of free disk space (nullptr restores statvfs).
void set_disk_space_query(DiskSpaceQuery query);

/// Throws ResourceError when bytes exceeds the free space of the file system holding path, less
/// a reserve: 10 % of its size, at least 1 GB, but no more than ten times bytes (the message
/// names the rule that applied, and what is short: bytes and the reserve beyond the free space)
/// (a full disk stalls a desktop as surely as exhausted memory); a file system that reports no
/// size (/proc) is not checked.
void require_disk(double bytes, const std::string& path, const std::string& what,
                  const std::string& way_out);

}  // namespace attn
