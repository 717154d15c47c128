// AttnScope — `attnscope batch`'s journal. GPL-3.0-or-later.
#include "cli/batch_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QByteArray>
#include <QCryptographicHash>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "attn/util/error.hpp"

namespace cli::batch {

namespace {

constexpr std::string_view kJournalMagic = "ASJ1";

std::string lengthBytes(std::uint64_t n) {
    std::string out;
    for (int i = 0; i < 8; ++i)
        out += char((n >> (8 * i)) & 0xFF);
    return out;
}

/// SHA-256 of the length bytes and the body.
std::string recordHash(std::string_view length, std::string_view body) {
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(QByteArrayView(length.data(), qsizetype(length.size())));
    h.addData(QByteArrayView(body.data(), qsizetype(body.size())));
    return h.result().toStdString();
}

[[noreturn]] void journalFailed(const std::string& path, const char* what) {
    throw attn::Error(path + ": cannot " + what + " the journal: " + std::strerror(errno));
}

/// The tests' kill points: ATTNSCOPE_BATCH_KILL_AFTER=K stops this process with SIGKILL once
/// it has appended K records; "K+" writes half of record K + 1 first (a torn record).
void killPoint(int fd, int appended, std::string_view record) {
    const char* env = std::getenv("ATTNSCOPE_BATCH_KILL_AFTER");
    if (!env || !*env) return;
    const int k = std::atoi(env);
    const bool torn = std::strchr(env, '+') != nullptr;
    if (torn && appended == k + 1) {
        [[maybe_unused]] const ssize_t w = ::write(fd, record.data(), record.size() / 2);
        ::fsync(fd);
        std::raise(SIGKILL);
    }
    if (!torn && appended == k + 1) std::raise(SIGKILL);
}

}  // namespace

Journal::Journal(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0) journalFailed(path_, "open");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) journalFailed(path_, "read");
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        fd_ = -1;
        throw attn::Error(path_ + ": the journal is not a regular file");
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
        throw attn::Error(path_ + ": another attnscope batch is writing this output");
    }
    std::string bytes(std::size_t(st.st_size), '\0');
    std::size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::pread(fd_, bytes.data() + got, bytes.size() - got, off_t(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) journalFailed(path_, "read");
        got += std::size_t(n);
    }
    std::size_t at = 0;
    while (bytes.size() - at >= kJournalMagic.size() + 8 + 32 &&
           std::string_view(bytes).substr(at, kJournalMagic.size()) == kJournalMagic) {
        const std::string_view length = std::string_view(bytes).substr(at + 4, 8);
        std::uint64_t n = 0;
        for (int i = 0; i < 8; ++i)
            n |= std::uint64_t(static_cast<unsigned char>(length[std::size_t(i)])) << (8 * i);
        const std::size_t bodyAt = at + 12;
        if (n > bytes.size() - bodyAt || bytes.size() - bodyAt - n < 32) break;
        const std::string_view body = std::string_view(bytes).substr(bodyAt, std::size_t(n));
        if (recordHash(length, body) != bytes.substr(bodyAt + n, 32)) break;
        records_.emplace_back(body);
        at = bodyAt + std::size_t(n) + 32;
    }
    // What follows the last whole record is a torn one: cut off before anything is appended.
    if (at != bytes.size() && ::ftruncate(fd_, off_t(at)) != 0) journalFailed(path_, "repair");
    if (::lseek(fd_, off_t(at), SEEK_SET) < 0) journalFailed(path_, "repair");
}

Journal::~Journal() {
    if (fd_ >= 0) ::close(fd_);
}

void Journal::clear() {
    records_.clear();
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) < 0) journalFailed(path_, "empty");
}

void Journal::append(std::string_view body) {
    const std::string length = lengthBytes(body.size());
    std::string record(kJournalMagic);
    record += length;
    record += body;
    record += recordHash(length, body);
    killPoint(fd_, ++appended_, record);
    std::size_t done = 0;
    while (done < record.size()) {
        const ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) journalFailed(path_, "write");
        done += std::size_t(n);
    }
    if (::fsync(fd_) != 0) journalFailed(path_, "write");
    records_.emplace_back(body);
}

void Journal::remove() {
    ::unlink(path_.c_str());
}

}  // namespace cli::batch
