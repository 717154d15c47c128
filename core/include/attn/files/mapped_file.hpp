// AttnScope core — a read-only memory-mapped file. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace attn::io {

/// A whole file mapped read-only (an empty file maps to an empty span). Move-only.
class MappedFile {
  public:
    /// Maps path; throws FormatError naming the file when it cannot be opened or mapped.
    explicit MappedFile(const std::string& path);
    /// Maps the open file fd (which the caller still owns and closes); name is for messages.
    MappedFile(int fd, const std::string& name);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /// The file's bytes.
    std::span<const std::byte> bytes() const { return {data_, size_}; }
    /// The file's size in bytes.
    std::size_t size() const { return size_; }
    /// Tells the kernel a byte range was consumed, so its pages leave resident memory
    /// (keeps a load's peak RSS near one copy of the data).
    void release(std::size_t offset, std::size_t length) const;
    /// The same for every page the range touches, its edges too (a reader that is done with
    /// the neighbours as well, or fine with reading them again from the page cache).
    void release_touched(std::size_t offset, std::size_t length) const;
    /// Asks the kernel to read ahead sequentially.
    void advise_sequential() const;
    /// Copies the LENGTH bytes at AT (inside bytes()) to OUT by reading the file, not the
    /// mapping: on a virtual machine the first touch of each mapped page costs microseconds, so
    /// a weight read once per run is cheaper copied (docs/benchmarks.md). Throws FormatError
    /// naming the file when the range lies outside it or the read comes back short.
    void read(const std::byte* at, std::size_t length, void* out) const;

  private:
    void map(int fd, const std::string& name);
    void close_fd() noexcept;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    int fd_ = -1;       ///< kept open for read()
    std::string name_;  ///< for messages
};

}  // namespace attn::io
