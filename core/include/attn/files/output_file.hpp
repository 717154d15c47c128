// AttnScope core — how every output file is written: a unique temporary file beside the
// destination, moved over it only when whole. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

/// A file being written for `path`. The bytes go to a temporary file created in path's folder
/// with O_CREAT|O_EXCL under a name of its own (".NAME.XXXXXX.attnscope-tmp"), never a fixed
/// name a planted symbolic link could take, and locked (flock) while this object lives;
/// commit() gives it the permissions of the file it replaces (or 0666 less the umask) and
/// renames it over path, so readers and concurrent writers only ever see a whole file.
/// Destroyed uncommitted, it removes the temporary file. Creating one first removes this
/// output's temporary files left by killed runs (older than a minute and locked by nobody).
/// Move-only.
class OutputFile {
  public:
    /// Creates the temporary file; throws Error "<path>: cannot write: <why>" on failure.
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile&&) = delete;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Appends bytes at the end of what was appended so far; throws Error naming path.
    void append(std::span<const std::byte> bytes);
    /// Appends text.
    void append(std::string_view text);
    /// Writes bytes at an offset (a zip's headers); returns 0 or the errno that stopped it.
    int write_at(std::span<const std::byte> bytes, std::uint64_t offset);
    /// Flushes to disk, sets the permissions and renames the file over path; throws Error.
    void commit();
    /// The destination.
    const std::string& path() const { return path_; }
    /// The temporary file's path (tests).
    const std::string& temp_path() const { return tmp_; }

  private:
    std::string path_, tmp_;
    int fd_ = -1;
    std::uint64_t end_ = 0;
};

/// Checks, before anything is computed, that `path` may be written: its folder exists, it is
/// not a symbolic link (outputs are never written through one), not a folder, not one of
/// `inputs` (compared by device and inode, so a hard link or a symbolic link to an input
/// counts), and not read-only unless `replace_read_only` (the mode bits decide, so that root is
/// refused too; `how_to_replace` ends that message). Throws Error naming the file (and the
/// input) on refusal.
void check_output(const std::string& path, const std::vector<std::string>& inputs,
                  bool replace_read_only, std::string_view how_to_replace = {});

/// The suffix of OutputFile's temporary files (".attnscope-tmp").
std::string_view output_temp_suffix();

}  // namespace attn::io
