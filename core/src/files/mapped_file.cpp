// AttnScope core — a read-only memory-mapped file (POSIX mmap). GPL-3.0-or-later.
#include "attn/files/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "io_util.hpp"

namespace attn::io {

MappedFile::MappedFile(const std::string& path) {
    const std::string name = detail::base_name(path);
    // Never blocks: a FIFO planted in place of the file is refused, not waited on.
    const int fd = detail::open_regular(path, name);
    try {
        map(fd, name);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);  // the mapping keeps the file alive
}

MappedFile::MappedFile(int fd, const std::string& name) {
    map(fd, name);
}

void MappedFile::map(int fd, const std::string& name) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) detail::fail(name, "not a regular file");
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED)
            detail::fail(name,
                         std::string("cannot map the file into memory: ") + std::strerror(errno));
        data_ = static_cast<const std::byte*>(p);
    }
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void MappedFile::release(std::size_t offset, std::size_t length) const {
    if (!data_ || offset >= size_) return;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    // Only whole pages inside the range: a neighbouring slice may still need the edges.
    std::size_t begin = (offset + page - 1) / page * page;
    std::size_t end = std::min(size_, offset + length) / page * page;
    if (end <= begin) return;
    ::madvise(const_cast<std::byte*>(data_) + begin, end - begin, MADV_DONTNEED);
}

void MappedFile::release_touched(std::size_t offset, std::size_t length) const {
    if (!data_ || offset >= size_ || length == 0) return;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t begin = offset / page * page;
    const std::size_t end = std::min(size_, offset + length);
    ::madvise(const_cast<std::byte*>(data_) + begin, end - begin, MADV_DONTNEED);
}

void MappedFile::advise_sequential() const {
    if (data_) ::madvise(const_cast<std::byte*>(data_), size_, MADV_SEQUENTIAL);
}

}  // namespace attn::io
