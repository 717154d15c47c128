// AttnScope core — where a stored zip member's bytes lie in the archive, so an .npz member can be
// read in place (memory-mapped like an .npy) instead of copied out through libzip.
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace attn::io::detail {

/// Local header offset of every entry, by name, from the central directory (zip64 aware); empty
/// when the directory cannot be read plainly (the caller then lets libzip copy the members).
std::map<std::string, std::uint64_t> zip_local_headers(std::span<const std::byte> archive);

/// The `size` data bytes of the stored member `name` whose local header is at `offset`, when
/// that header is where the directory says and the data lies inside the archive.
std::optional<std::span<const std::byte>> zip_stored_data(std::span<const std::byte> archive,
                                                          std::uint64_t offset,
                                                          const std::string& name,
                                                          std::uint64_t size);

}  // namespace attn::io::detail
