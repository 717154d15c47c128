// AttnScope core — a stored zip archive streamed to disk. GPL-3.0-or-later.
#include "attn/io/zip/zip_writer.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "../../files/io_util.hpp"
#include "attn/util/error.hpp"
#include "zip_format.hpp"

namespace attn::io {

namespace {

using namespace zip_format;
constexpr std::uint16_t kMadeBy = (3 << 8) | 63;  // Unix, zip specification 6.3 (as libzip)
constexpr std::uint16_t kNeeds = 10, kNeeds64 = 45;
constexpr std::uint32_t kUnixRw = 0100666u << 16;  // regular file, rw-rw-rw- (as libzip)

/// Little-endian field appender.
struct Bytes {
    std::vector<std::byte> b;
    void u16(std::uint64_t v) { put(v, 2); }
    void u32(std::uint64_t v) { put(v, 4); }
    void u64(std::uint64_t v) { put(v, 8); }
    void text(const std::string& s) {
        for (char c : s)
            b.push_back(static_cast<std::byte>(c));
    }
    void put(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i)
            b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
    }
};

/// Bit 11 (names are UTF-8) only when a name is not plain ASCII, as libzip does.
std::uint16_t flags_for(const std::string& name) {
    for (char c : name)
        if (static_cast<unsigned char>(c) >= 0x80) return 1u << 11;
    return 0;
}

}  // namespace

ZipWriter::ZipWriter(std::string path, std::uint64_t zip64_limit)
    : path_(std::move(path)), file_(path_), zip64_limit_(zip64_limit) {
    const std::time_t now = std::time(nullptr);
    std::tm t{};
    localtime_r(&now, &t);
    dos_time_ = static_cast<std::uint16_t>((t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec / 2));
    dos_date_ =
        static_cast<std::uint16_t>(((t.tm_year - 80) << 9) | ((t.tm_mon + 1) << 5) | t.tm_mday);
}

ZipWriter::~ZipWriter() = default;

ZipWriter::ZipWriter(ZipWriter&& other) noexcept
    : path_(std::move(other.path_)),
      file_(std::move(other.file_)),
      zip64_limit_(other.zip64_limit_),
      finished_(other.finished_),
      end_(other.end_),
      dos_time_(other.dos_time_),
      dos_date_(other.dos_date_),
      members_(std::move(other.members_)) {}

std::uint64_t ZipWriter::local_header_size(const Member& m) const {
    return 30 + m.name.size() + (m.size >= zip64_limit_ ? 20 : 0);
}

std::size_t ZipWriter::reserve(const std::string& name, std::uint64_t size) {
    if (name.empty() || name.size() > 0xFFFF) throw Error(path_ + ": bad member name");
    Member m;
    m.name = name;
    m.size = size;
    m.header_offset = end_;
    end_ += local_header_size(m) + size;
    members_.push_back(std::move(m));
    return members_.size() - 1;
}

void ZipWriter::write(std::size_t index, std::span<const std::byte> bytes) {
    Member& m = members_.at(index);
    if (bytes.size() > m.size - m.written)
        throw Error(path_ + ": " + m.name + " is given more than its " + std::to_string(m.size) +
                    " bytes");
    put(m.header_offset + local_header_size(m) + m.written, bytes);
    // zlib's crc32 takes a 32-bit length: feed it in pieces of at most 1 GiB.
    for (std::size_t done = 0; done < bytes.size();) {
        const std::size_t n = std::min<std::size_t>(bytes.size() - done, std::size_t{1} << 30);
        m.crc = static_cast<std::uint32_t>(::crc32(
            m.crc, reinterpret_cast<const Bytef*>(bytes.data() + done), static_cast<uInt>(n)));
        done += n;
    }
    m.written += bytes.size();
}

void ZipWriter::add(const std::string& name, std::span<const std::byte> bytes) {
    write(reserve(name, bytes.size()), bytes);
}

std::vector<std::byte> ZipWriter::local_header(const Member& m) const {
    const bool z64 = m.size >= zip64_limit_;
    Bytes h;
    h.u32(kLocalSig);
    h.u16(z64 ? kNeeds64 : kNeeds);
    h.u16(flags_for(m.name));
    h.u16(0);  // stored
    h.u16(dos_time_);
    h.u16(dos_date_);
    h.u32(m.crc);
    h.u32(z64 ? kMax32 : m.size);
    h.u32(z64 ? kMax32 : m.size);
    h.u16(m.name.size());
    h.u16(z64 ? 20 : 0);
    h.text(m.name);
    if (z64) {  // zip64 extra field: both sizes
        h.u16(1);
        h.u16(16);
        h.u64(m.size);
        h.u64(m.size);
    }
    return std::move(h.b);
}

std::vector<std::byte> ZipWriter::central_directory(std::uint64_t cd_offset) const {
    Bytes d;
    for (const Member& m : members_) {
        const bool big_size = m.size >= zip64_limit_, big_offset = m.header_offset >= zip64_limit_;
        const std::uint16_t extra = (big_size ? 16 : 0) + (big_offset ? 8 : 0);
        d.u32(kCentralSig);
        d.u16(kMadeBy);
        d.u16(big_size || big_offset ? kNeeds64 : kNeeds);
        d.u16(flags_for(m.name));
        d.u16(0);
        d.u16(dos_time_);
        d.u16(dos_date_);
        d.u32(m.crc);
        d.u32(big_size ? kMax32 : m.size);
        d.u32(big_size ? kMax32 : m.size);
        d.u16(m.name.size());
        d.u16(extra ? extra + 4 : 0);
        d.u16(0);  // comment
        d.u16(0);  // disk
        d.u16(0);  // internal attributes
        d.u32(kUnixRw);
        d.u32(big_offset ? kMax32 : m.header_offset);
        d.text(m.name);
        if (extra) {  // only the fields that overflowed, in the specification's order
            d.u16(1);
            d.u16(extra);
            if (big_size) d.u64(m.size), d.u64(m.size);
            if (big_offset) d.u64(m.header_offset);
        }
    }
    const std::uint64_t cd_size = d.b.size(), n = members_.size();
    const bool z64 = n >= 0xFFFF || cd_size >= zip64_limit_ || cd_offset >= zip64_limit_;
    if (z64) {
        const std::uint64_t record = cd_offset + cd_size;
        d.u32(kEnd64Sig);
        d.u64(44);  // size of the rest of this record
        d.u16(kMadeBy);
        d.u16(kNeeds64);
        d.u32(0);
        d.u32(0);
        d.u64(n);
        d.u64(n);
        d.u64(cd_size);
        d.u64(cd_offset);
        d.u32(kLocator64Sig);
        d.u32(0);
        d.u64(record);
        d.u32(1);
    }
    d.u32(kEndSig);
    d.u16(0);
    d.u16(0);
    d.u16(z64 ? 0xFFFF : n);
    d.u16(z64 ? 0xFFFF : n);
    d.u32(z64 ? kMax32 : cd_size);
    d.u32(z64 ? kMax32 : cd_offset);
    d.u16(0);  // comment
    return std::move(d.b);
}

void ZipWriter::finish() {
    if (finished_) throw Error(path_ + ": the archive was already finished");
    for (const Member& m : members_)
        if (m.written != m.size)
            throw Error(path_ + ": " + m.name + " holds " + std::to_string(m.written) + " of its " +
                        std::to_string(m.size) + " bytes");
    for (const Member& m : members_)
        put(m.header_offset, local_header(m));
    put(end_, central_directory(end_));
    finished_ = true;
    file_.commit();
}

void ZipWriter::put(std::uint64_t offset, std::span<const std::byte> bytes) {
    if (finished_) throw Error(path_ + ": the archive was already finished");
    if (const int error = file_.write_at(bytes, offset)) io_failure(std::strerror(error));
}

void ZipWriter::io_failure(const std::string& what) {
    throw Error(path_ + ": write error: " + what);
}

}  // namespace attn::io
