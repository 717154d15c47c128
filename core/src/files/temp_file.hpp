// AttnScope core — unlinked temporary files written once and then memory-mapped (an inflated
// .npz member, a Fortran-order array transposed to rows). GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "attn/files/mapped_file.hpp"

namespace attn::io::detail {

/// Where temporary files go: $TMPDIR, else /tmp, or /var/tmp when /tmp is a RAM disk (tmpfs),
/// where a file would take memory after all.
std::string temp_dir();

/// A new temporary file of `bytes` bytes written by fill(fd), then mapped read-only. Free disk
/// space is checked first (require_disk: a ResourceError naming `what`, the size and the
/// shortfall); the file is unlinked as soon as it exists, so nothing is left behind.
std::shared_ptr<const MappedFile> mapped_temp_file(std::uint64_t bytes, const std::string& what,
                                                   const std::function<void(int fd)>& fill);

/// Writes size bytes at offset of fd (retrying short writes); a failure (a full disk) throws
/// ResourceError naming `what`.
void write_at(int fd, const void* data, std::size_t size, std::uint64_t offset,
              const std::string& what);

}  // namespace attn::io::detail
