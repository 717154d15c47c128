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
    fd_ = fd;  // kept for read(); the mapping alone would keep the file alive
}

MappedFile::MappedFile(int fd, const std::string& name) {
    map(fd, name);
    fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);  // the caller closes its own
}

void MappedFile::map(int fd, const std::string& name) {
    name_ = name;
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
    close_fd();
}

void MappedFile::close_fd() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      fd_(std::exchange(other.fd_, -1)),
      name_(std::move(other.name_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
        close_fd();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        fd_ = std::exchange(other.fd_, -1);
        name_ = std::move(other.name_);
    }
    return *this;
}

void MappedFile::read(const std::byte* at, std::size_t length, void* out) const {
    if (length == 0) return;
    const auto where = [&] {
        return " bytes at offset " + std::to_string(at - data_) + " of a file of " +
               std::to_string(size_) + " bytes";
    };
    if (!data_ || at < data_ || std::size_t(at - data_) > size_ ||
        length > size_ - std::size_t(at - data_))
        detail::fail(name_, "cannot read " + std::to_string(length) + where() +
                                ": the range lies outside the file");
    if (fd_ < 0) {  // no descriptor to read with: the mapping holds the same bytes
        std::memcpy(out, at, length);
        return;
    }
    auto* dst = static_cast<char*>(out);
    const auto offset = static_cast<off_t>(at - data_);
    for (std::size_t done = 0; done < length;) {
        const ssize_t n = ::pread(fd_, dst + done, length - done, offset + off_t(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            detail::fail(name_, "could not read " + std::to_string(length) + where() +
                                    (n < 0 ? std::string(": ") + std::strerror(errno)
                                           : std::string(": the file is shorter now (changed "
                                                         "on disk while open?)")));
        done += std::size_t(n);
    }
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
