// AttnScope core — format detection and the single load entry point. GPL-3.0-or-later.
#include "attn/io/load.hpp"

#include <sys/stat.h>

#include <cstring>
#include <fstream>

#include "attn/io/attention_json.hpp"
#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

namespace {

using detail::fail;

std::string head_of(const std::string& path, std::size_t n) {
    // Opening a FIFO would block until a writer comes; a directory or device is no file at all.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        fail(detail::base_name(path),
             std::string("is ") + what + ", not a file; AttnScope opens regular files only");
    }
    // Said plainly, not as whatever a parser makes of zero bytes.
    if (st.st_size == 0 && S_ISREG(st.st_mode))
        fail(detail::base_name(path), "file is empty (0 bytes)");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(detail::base_name(path), std::string("cannot open: ") + std::strerror(errno));
    std::string s(n, '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    s.resize(static_cast<std::size_t>(in.gcount()));
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
