// AttnScope core — outputs written to a unique temporary file and renamed into place.
// GPL-3.0-or-later.
#include "attn/files/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <utility>

#include "attn/util/error.hpp"
#include "io_util.hpp"

namespace attn::io {
namespace {

constexpr std::string_view kSuffix = ".attnscope-tmp";
constexpr std::size_t kRandom = 6;         // mkostemps' XXXXXX
constexpr std::size_t kNameInTemp = 200;   // leaves room below NAME_MAX (255) for the rest
constexpr std::time_t kStaleSeconds = 60;  // a live writer locks its file at once

std::string folder_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

/// ".NAME." — the start of every temporary file of the output named NAME.
std::string temp_prefix(const std::string& path) {
    // Appended rather than "." + …: GCC 12 inlines that operator+ into a memcpy whose bound it
    // cannot prove small and refuses with -Wstringop-overflow.
    std::string prefix(1, '.');
    prefix.append(detail::base_name(path), 0, kNameInTemp);
    prefix.push_back('.');
    return prefix;
}

/// The process's umask, read without changing it (umask(2) would, for every thread).
mode_t current_umask() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Umask:", 0) == 0)
            return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return 022;
}

/// Removes what killed runs left of this output's temporary files: old enough, and locked by
/// nobody (a live writer holds its lock from the moment its file exists).
void remove_stale_temps(const std::string& dir, const std::string& prefix) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    const int dfd = ::dirfd(d);
    const std::time_t now = std::time(nullptr);
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name(e->d_name);
        if (name.size() != prefix.size() + kRandom + kSuffix.size() || !name.starts_with(prefix) ||
            !name.ends_with(kSuffix))
            continue;
        struct stat st {};
        if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            now - st.st_mtime < kStaleSeconds)
            continue;
        const int fd = ::openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;
        struct stat open {};
        if (::fstat(fd, &open) == 0 && open.st_ino == st.st_ino && open.st_dev == st.st_dev &&
            ::flock(fd, LOCK_EX | LOCK_NB) == 0)
            ::unlinkat(dfd, e->d_name, 0);
        ::close(fd);
    }
    ::closedir(d);
}

/// Read-only by its mode bits (root may write anyway, but is refused alike), or on a
/// read-only file system.
bool read_only(const std::string& path, const struct stat& st) {
    if ((st.st_mode & 0222) == 0) return true;
    return ::access(path.c_str(), W_OK) != 0 && (errno == EACCES || errno == EROFS);
}

std::string octal_mode(mode_t mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
    return buf;
}

}  // namespace

std::string_view output_temp_suffix() {
    return kSuffix;
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    const std::string dir = folder_of(path_), prefix = temp_prefix(path_);
    remove_stale_temps(dir, prefix);
    std::string name = dir + "/" + prefix + std::string(kRandom, 'X') + std::string(kSuffix);
    // mkostemps opens with O_CREAT|O_EXCL, mode 0600: an existing name (a planted link) fails
    // and another name is tried.
    fd_ = ::mkostemps(name.data(), static_cast<int>(kSuffix.size()), O_CLOEXEC);
    if (fd_ < 0)
        throw Error(path_ + ": cannot write: cannot create a temporary file in " + dir + ": " +
                    std::strerror(errno));
    tmp_ = std::move(name);
    ::flock(fd_, LOCK_EX | LOCK_NB);  // tells remove_stale_temps of other runs it is alive
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(tmp_.c_str());
    }
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      tmp_(std::move(other.tmp_)),
      fd_(std::exchange(other.fd_, -1)),
      end_(other.end_) {}

int OutputFile::write_at(std::span<const std::byte> bytes, std::uint64_t offset) {
    if (fd_ < 0) return EBADF;
    return detail::pwrite_all(fd_, bytes, offset);
}

void OutputFile::append(std::span<const std::byte> bytes) {
    if (const int error = write_at(bytes, end_))
        throw Error(path_ + ": write error: " + std::strerror(error));
    end_ += bytes.size();
}

void OutputFile::append(std::string_view text) {
    append(detail::as_bytes(text));
}

void OutputFile::commit() {
    if (fd_ < 0) throw Error(path_ + ": the file was already written");
    // The replaced file's permissions (and, for root, owner) carry over: a private 0600
    // session stays private. A new file gets what open(2) would have given it.
    struct stat st {};
    mode_t mode = 0666 & ~current_umask();
    if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        if (::fchown(fd_, st.st_uid, st.st_gid) != 0) {
            // Not permitted unless root: the file becomes the writer's, as any editor does.
        }
        mode = st.st_mode & 07777;
    }
    std::string why;
    if (::fchmod(fd_, mode) != 0 || ::fdatasync(fd_) != 0) why = std::strerror(errno);
    if (::close(std::exchange(fd_, -1)) != 0 && why.empty()) why = std::strerror(errno);
    if (why.empty() && ::rename(tmp_.c_str(), path_.c_str()) != 0)
        why = std::string("cannot replace: ") + std::strerror(errno);
    if (!why.empty()) {
        ::unlink(tmp_.c_str());
        throw Error(path_ + ": write error: " + why);
    }
}

void check_output(const std::string& path, const std::vector<std::string>& inputs,
                  bool replace_read_only, std::string_view how_to_replace) {
    if (path.empty()) throw Error("no output file given");
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        const std::string dir = folder_of(path);
        struct stat d {};
        if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode))
            throw Error(path + ": the folder " + dir + " does not exist");
        return;
    }
    if (S_ISLNK(st.st_mode)) {
        std::string target(4096, '\0');
        const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
        target.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        throw Error(path + ": is a symbolic link (to " + target +
                    "); outputs are never written through a link: give the file's own path or "
                    "remove the link");
    }
    if (S_ISDIR(st.st_mode)) throw Error(path + ": is a folder, not a file");
    if (!S_ISREG(st.st_mode))
        throw Error(path +
                    ": is not a regular file (a device, FIFO or socket); it is not "
                    "replaced");
    for (const std::string& input : inputs) {
        struct stat in {};
        if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
        if (in.st_dev == st.st_dev && in.st_ino == st.st_ino)
            throw Error(path + ": is the input " + input +
                        " (the same file); write the output to another file");
    }
    if (!replace_read_only && read_only(path, st))
        throw Error(path + ": is read-only (mode " + octal_mode(st.st_mode) +
                    "), so it is not replaced" +
                    (how_to_replace.empty() ? "" : "; " + std::string(how_to_replace)));
}

}  // namespace attn::io
