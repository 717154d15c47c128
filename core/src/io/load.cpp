// AttnScope core — format detection and the single load entry point. GPL-3.0-or-later.
#include "attn/io/load.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "attn/io/attention_json.hpp"
#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

namespace {

using detail::fail;

std::string head_of(const std::string& path, std::size_t n) {
    // Opened without blocking (a FIFO would wait for a writer) and only when a regular file.
    const int fd = detail::open_regular(path, detail::base_name(path));
    // Said plainly, not as whatever a parser makes of zero bytes.
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size == 0) {
        ::close(fd);
        fail(detail::base_name(path), "file is empty (0 bytes)");
    }
    std::string s(n, '\0');
    ssize_t got = 0;
    do
        got = ::read(fd, s.data(), n);
    while (got < 0 && errno == EINTR);
    ::close(fd);
    if (got < 0) fail(detail::base_name(path), std::string("cannot read: ") + std::strerror(errno));
    s.resize(static_cast<std::size_t>(got));
    return s;
}

}  // namespace

const char* to_string(FileKind kind) {
    switch (kind) {
        case FileKind::Npy:
            return "npy";
        case FileKind::Npz:
            return "npz";
        case FileKind::AttentionJson:
            return "attention-json";
        case FileKind::Tokens:
            return "tokens";
        case FileKind::Session:
            return "session";
    }
    return "?";
}

FileKind detect_format(const std::string& path) {
    const std::string head = head_of(path, 512);
    const std::string ext = detail::extension(path);
    if (head.starts_with("\x93NUMPY")) return FileKind::Npy;
    if (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06")) return FileKind::Npz;
    if (ext == ".npy") return FileKind::Npy;  // the parser explains what is wrong
    if (ext == ".npz") return FileKind::Npz;
    if (looks_like_session(head) || ext == ".attnscope") return FileKind::Session;
    std::string_view body = head;
    if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
    const auto first = body.find_first_not_of(" \t\r\n");
    const bool json_like = first != std::string_view::npos && body[first] == '{';
    if (ext == ".json" || (json_like && ext != ".txt")) return FileKind::AttentionJson;
    if (ext == ".txt") return FileKind::Tokens;
    fail(detail::base_name(path),
         "unknown format (AttnScope opens .npy, .npz, BertViz/CircuitsVis .json, token .txt "
         "and .attnscope session files)");
}

Loaded load_any(const std::string& path, Progress* progress) {
    switch (detect_format(path)) {
        case FileKind::Npy:
            return load_npy_attention(path, progress);
        case FileKind::Npz:
            return load_npz_attention(path, progress);
        case FileKind::AttentionJson:
            return load_attention_json(path, progress);
        case FileKind::Tokens:
            return load_token_text(path);
        case FileKind::Session:
            return load_session(path);
    }
    fail(detail::base_name(path), "unknown format");
}

AttentionData load_attention(const std::string& path, Progress* progress) {
    const FileKind kind = detect_format(path);
    switch (kind) {
        case FileKind::Npy:
            return load_npy_attention(path, progress);
        case FileKind::Npz:
            return load_npz_attention(path, progress);
        case FileKind::AttentionJson:
            return load_attention_json(path, progress);
        default:
            break;
    }
    fail(detail::base_name(path), std::string("holds ") +
                                      (kind == FileKind::Tokens ? "tokens" : "a session") +
                                      ", not attention data");
}

}  // namespace attn::io
