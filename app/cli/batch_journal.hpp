// AttnScope — `attnscope batch`'s journal: the records of a run so far, beside its output, each
// flushed to disk and self-checking so that a record torn by a kill is dropped.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cli::batch {

/// A journal file: records of "ASJ1", the body's length (u64 little-endian), the body and the
/// SHA-256 of length and body. Opening reads the whole records and cuts off what follows the
/// last of them (a torn record). Locked (flock) while open: one run per output. Move-less.
class Journal {
  public:
    /// Opens or creates PATH (never through a symbolic link); throws attn::Error naming it.
    explicit Journal(std::string path);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    /// The bodies of the whole records, in order.
    const std::vector<std::string>& records() const { return records_; }
    /// Empties the file (a journal of another run is started again).
    void clear();
    /// Appends a record and flushes it to disk (fsync) before returning; throws attn::Error.
    void append(std::string_view body);
    /// Deletes the file (the run is complete).
    void remove();
    /// The file's path.
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    int fd_ = -1;
    std::vector<std::string> records_;
    int appended_ = 0;  ///< records this process appended (the kill points of the tests)
};

}  // namespace cli::batch
