// AttnScope core — helpers shared by the file-format readers. GPL-3.0-or-later.
#include "io_util.hpp"

#include "attn/files/output_file.hpp"
#include "attn/util/memory_budget.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace attn::io::detail {

void fail(std::string_view name, std::string_view what) {
    std::string msg(name);
    msg += ": ";
    msg += what;
    throw FormatError(msg);
}

std::string human_bytes(std::uint64_t bytes) {
    return format_bytes(static_cast<double>(bytes));
}

std::string shape_string(std::span<const std::uint64_t> shape) {
    if (shape.empty()) return "a scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += "×";
        s += std::to_string(shape[i]);
    }
    return s;
}

std::string index_string(std::span<const std::uint64_t> index) {
    std::string s = "[";
    for (std::size_t i = 0; i < index.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(index[i]);
    }
    return s + "]";
}

std::size_t invalid_utf8_offset(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        char32_t cp = 0, min = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n) return i;
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return std::string_view::npos;
}

float narrow(double v) {
    constexpr double kMax = std::numeric_limits<float>::max();
    // Doubles up to half an ulp above FLT_MAX round down to it; beyond, the cast would be UB.
    constexpr double kRoundsToMax = kMax + 0x1p103;
    if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
    if (v >= kRoundsToMax) return std::numeric_limits<float>::infinity();
    if (v <= -kRoundsToMax) return -std::numeric_limits<float>::infinity();
    if (v > kMax) return std::numeric_limits<float>::max();
    if (v < -kMax) return -std::numeric_limits<float>::max();
    return static_cast<float>(v);
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string base_name(std::string_view path) {
    const auto slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string extension(std::string_view path) {
    const std::string base = base_name(path);
    const auto dot = base.find_last_of('.');
    if (dot == std::string::npos || dot == 0) return "";
    std::string ext = base.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

int open_regular(const std::string& path, const std::string& name) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    // A loop is there but leads nowhere: said so, not left to strerror's terse wording.
    if (fd < 0 && errno == ELOOP)
        fail(name,
             "is a symbolic link that never reaches a file (a loop: too many levels of "
             "symbolic links)");
    if (fd < 0) fail(name, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                           : S_ISDIR(st.st_mode)  ? "a directory"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a file";
        fail(name, std::string("is ") + kind + ", not a regular file");
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

std::vector<std::byte> read_whole_file(const std::string& path, const std::string& name) {
    const std::string shown = name.empty() ? base_name(path) : name;
    const int fd = open_regular(path, shown);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(shown, "cannot determine the file size");
    const auto size = static_cast<std::size_t>(st.st_size);
    // Read whole: the file's size is what is allocated, so it is checked first.
    require_memory(double(size), shown + " read into memory",
                   "use a smaller file or a larger --memory-budget");
    std::vector<std::byte> bytes(size);
    for (std::size_t done = 0; done < size;) {
        const ssize_t n = ::read(fd, bytes.data() + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(shown, n == 0 ? "the file shrank while it was read" : "read error");
        done += static_cast<std::size_t>(n);
    }
    return bytes;
}

void write_whole_file(const std::string& path, std::span<const std::byte> bytes) {
    OutputFile out(path);
    out.append(bytes);
    out.commit();
}

int pwrite_all(int fd, std::span<const std::byte> bytes, std::uint64_t offset) {
    while (!bytes.empty()) {
        const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return ENOSPC;
        bytes = bytes.subspan(static_cast<std::size_t>(n));
        offset += static_cast<std::uint64_t>(n);
    }
    return 0;
}

}  // namespace attn::io::detail
