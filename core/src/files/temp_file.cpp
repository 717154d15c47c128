// AttnScope core — unlinked temporary files written once and then memory-mapped.
// GPL-3.0-or-later.
#include "temp_file.hpp"

#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "io_util.hpp"

namespace attn::io::detail {

namespace {

constexpr long kTmpfsMagic = 0x01021994;  // TMPFS_MAGIC of <linux/magic.h>

bool on_tmpfs(const std::string& dir) {
    struct statfs fs {};
    return ::statfs(dir.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic;
}

/// Closes the descriptor at scope exit.
struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
};

}  // namespace

std::string temp_dir() {
    std::error_code ec;
    const std::string dir = std::filesystem::temp_directory_path(ec).string();
    if (ec) return "/tmp";
    if (!std::getenv("TMPDIR") && on_tmpfs(dir) && std::filesystem::is_directory("/var/tmp") &&
        !on_tmpfs("/var/tmp") && ::access("/var/tmp", W_OK) == 0)
        return "/var/tmp";
    return dir;
}

void write_at(int fd, const void* data, std::size_t size, std::uint64_t offset,
              const std::string& what) {
    if (const int error = pwrite_all(fd, {static_cast<const std::byte*>(data), size}, offset))
        throw ResourceError(what + ": cannot write the temporary file in " + temp_dir() + ": " +
                            std::strerror(error));
}

std::shared_ptr<const MappedFile> mapped_temp_file(std::uint64_t bytes, const std::string& what,
                                                   const std::function<void(int fd)>& fill) {
    const std::string dir = temp_dir();
    require_disk(static_cast<double>(bytes), dir + "/attnscope.tmp", what,
                 "free space there or set TMPDIR to a directory on a larger disk");
    std::string path = dir + "/attnscope-XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0)
        throw ResourceError(what + ": cannot create a temporary file in " + dir + ": " +
                            std::strerror(errno));
    const FdCloser closer{fd};
    ::unlink(name.data());  // gone from the directory now; the descriptor and map keep it
    fill(fd);
    auto file = std::make_shared<const MappedFile>(fd, what);
    if (file->size() != bytes)
        throw ResourceError(what + ": the temporary file holds " + std::to_string(file->size()) +
                            " bytes, not the " + std::to_string(bytes) + " written");
    return file;
}

}  // namespace attn::io::detail
