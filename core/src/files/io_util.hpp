// AttnScope core — small helpers shared by the file-format readers (private header).
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/util/error.hpp"

namespace attn::io::detail {

/// Throws FormatError "<name>: <what>".
[[noreturn]] void fail(std::string_view name, std::string_view what);

/// "604 MB", "4.2 MB", "17 B": decimal units, two significant figures below 10.
std::string human_bytes(std::uint64_t bytes);

/// "12×12×1024×1024".
std::string shape_string(std::span<const std::uint64_t> shape);

/// "[3, 2, 5, 1]".
std::string index_string(std::span<const std::uint64_t> index);

/// Position of the first byte that is not valid UTF-8, or npos when the text is valid
/// (rejects overlong forms, surrogates and code points beyond U+10FFFF).
std::size_t invalid_utf8_offset(std::string_view text);

/// A double rounded to float without undefined behaviour: values beyond the float range (after
/// rounding) become ±inf, NaN stays NaN.
float narrow(double v);

/// Appends the UTF-8 encoding of a code point (assumed valid).
void append_utf8(std::string& out, char32_t cp);

/// The last path component of a file name, used in messages.
std::string base_name(std::string_view path);

/// Lower-cased extension including the dot (".npy"), or "".
std::string extension(std::string_view path);

/// Reads a whole (small) file; throws FormatError naming it when it cannot be read.
std::vector<std::byte> read_whole_file(const std::string& path, const std::string& name = {});

/// Opens PATH for reading without ever blocking (O_NONBLOCK: a FIFO or a device would wait for
/// a writer) and returns the descriptor once fstat shows a regular file, blocking again; throws
/// FormatError "<name>: is a FIFO, not a regular file" (a directory, a device…) otherwise.
int open_regular(const std::string& path, const std::string& name);

/// Writes bytes to path atomically (an OutputFile: unique temporary file + rename); throws Error
/// on failure.
void write_whole_file(const std::string& path, std::span<const std::byte> bytes);

/// Writes all of bytes at offset of fd, retrying short writes and EINTR; returns 0, or the errno
/// that stopped it (ENOSPC when a write made no progress). Callers word the failure themselves.
int pwrite_all(int fd, std::span<const std::byte> bytes, std::uint64_t offset);

/// A byte view of a string.
inline std::span<const std::byte> as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
/// A string view of bytes.
inline std::string_view as_chars(std::span<const std::byte> b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace attn::io::detail
