// AttnScope core — CRC-32 (ISO-HDLC, as zip uses), slicing by 8. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace attn::io::detail {

/// Continues a zip CRC-32 over bytes (start with crc = 0). About 8 bytes a cycle's worth of
/// table lookups: zlib's crc32 would do, but core does not link zlib directly.
std::uint32_t crc32(std::uint32_t crc, std::span<const std::byte> bytes);

}  // namespace attn::io::detail
