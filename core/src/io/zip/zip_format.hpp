// AttnScope core — the zip record signatures and the ZIP64 marker (APPNOTE 6.3), shared by the
// archive writer and the reader of member offsets. GPL-3.0-or-later.
#pragma once

#include <cstdint>

namespace attn::io::zip_format {

inline constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50;
inline constexpr std::uint32_t kEndSig = 0x06054b50, kEnd64Sig = 0x06064b50,
                               kLocator64Sig = 0x07064b50;
/// A 32-bit size or offset field holding this says "see the ZIP64 extra field".
inline constexpr std::uint32_t kMax32 = 0xFFFFFFFFu;

}  // namespace attn::io::zip_format
