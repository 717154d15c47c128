// AttnScope core — the table of formats, detection through it, and the lists made from it.
// GPL-3.0-or-later.
#include "attn/io/formats.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "../files/io_util.hpp"
#include "attn/io/json/attention_json.hpp"
#include "attn/io/numpy/numpy_attention.hpp"

namespace attn::io {

namespace formats_detail {

using detail::fail;

/// The first n bytes of a regular file, and its size.
struct Head {
    std::string bytes;
    std::uint64_t size = 0;
};

Head head_of(const std::string& path, std::size_t n) {
    // Opened without blocking (a FIFO would wait for a writer) and only when a regular file.
    const int fd = detail::open_regular(path, detail::base_name(path));
    Head h;
    struct stat st {};
    if (::fstat(fd, &st) == 0) h.size = static_cast<std::uint64_t>(st.st_size);
    // Said plainly, not as whatever a parser makes of zero bytes.
    if (h.size == 0) {
        ::close(fd);
        fail(detail::base_name(path), "file is empty (0 bytes)");
    }
    h.bytes.assign(n, '\0');
    ssize_t got = 0;
    do
        got = ::read(fd, h.bytes.data(), n);
    while (got < 0 && errno == EINTR);
    ::close(fd);
    if (got < 0) fail(detail::base_name(path), std::string("cannot read: ") + std::strerror(errno));
    h.bytes.resize(static_cast<std::size_t>(got));
    return h;
}

bool json_like(std::string_view body) {
    if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
    const auto first = body.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && body[first] == '{';
}

Loaded load_npy(const std::string& path, Progress* progress) {
    return load_npy_attention(path, progress);
}
Loaded load_npz(const std::string& path, Progress* progress) {
    return load_npz_attention(path, progress);
}
Loaded load_json(const std::string& path, Progress* progress) {
    return load_attention_json(path, progress);
}
Loaded load_tokens(const std::string& path, Progress*) {
    return load_token_text(path);
}
Loaded load_session_file(const std::string& path, Progress*) {
    return load_session(path);
}

/// "*.npy *.npz" of the given extensions.
std::string globs(const std::vector<const char*>& extensions) {
    std::string out;
    for (const char* e : extensions)
        out += (out.empty() ? "*" : " *") + std::string(e);
    return out;
}

/// ".npy" or ".npz, .json" of a format's own extensions.
std::string extension_list(const Format& f) {
    std::string out;
    for (const char* e : f.extensions)
        out += (out.empty() ? "" : ", ") + std::string(e);
    return out;
}

}  // namespace formats_detail

const std::vector<Format>& formats() {
    using namespace formats_detail;
    // The order is the dialog's and the help's; detection does not depend on it (each pass
    // asks every format, and no two formats share a magic prefix or an extension).
    static const std::vector<Format> table = {
        {FileKind::Npy,
         "npy",
         "NumPy array",
         "attention weights or raw scores",
         {".npy"},
         {"\x93NUMPY"},
         nullptr,
         nullptr,
         {},
         true,
         &load_npy},
        {FileKind::Npz,
         "npz",
         "NumPy archive",
         "attention and/or raw scores, tokens, q and k",
         {".npz"},
         {"PK\x03\x04", "PK\x05\x06"},
         nullptr,
         nullptr,
         {},
         true,
         &load_npz},
        {FileKind::AttentionJson,
         "attention-json",
         "BertViz / CircuitsVis JSON",
         "a head view payload",
         {".json"},
         {},
         nullptr,
         &json_like,
         {},
         true,
         &load_json},
        {FileKind::Tokens,
         "tokens",
         "Token text",
         "a token list, one per line",
         {".txt"},
         {},
         nullptr,
         nullptr,
         {},
         false,
         &load_tokens},
        {FileKind::Session,
         "session",
         "AttnScope session",
         "a scene, its data or a path to it, and the view",
         {".attnscope"},
         {},
         &looks_like_session,
         nullptr,
         {".json"},
         false,
         &load_session_file},
    };
    return table;
}

const Format& detect(const std::string& path) {
    using namespace formats_detail;
    const Head head = head_of(path, 512);
    const std::string ext = detail::extension(path);
    for (const Format& f : formats()) {
        for (std::string_view m : f.magic)
            if (std::string_view(head.bytes).starts_with(m)) return f;
        if (f.content && f.content(head.bytes)) return f;
    }
    // The name next: a damaged .npy is still read as one, so its parser says what is wrong.
    for (const Format& f : formats())
        for (const char* e : f.extensions)
            if (ext == e) return f;
    for (const Format& f : formats())
        if (f.fallback && f.fallback(head.bytes)) return f;
    std::string known;
    for (const Format& f : formats())
        known += (known.empty() ? "" : ", ") + std::string(f.name) + " (" + extension_list(f) + ")";
    fail(detail::base_name(path),
         "unknown format (" + detail::human_bytes(head.size) + "; AttnScope opens " + known + ")");
}

std::string open_dialog_filter() {
    using namespace formats_detail;
    std::vector<const char*> every;
    for (const Format& f : formats())
        for (const auto* list : {&f.extensions, &f.dialog_extra})
            for (const char* e : *list)
                if (std::none_of(every.begin(), every.end(),
                                 [e](const char* x) { return std::strcmp(x, e) == 0; }))
                    every.push_back(e);
    std::string out = "Everything AttnScope opens (" + globs(every) + ")";
    for (const Format& f : formats()) {
        std::vector<const char*> own = f.extensions;
        own.insert(own.end(), f.dialog_extra.begin(), f.dialog_extra.end());
        out += ";;" + std::string(f.name) + " (" + globs(own) + ")";
    }
    return out + ";;All files (*)";
}

std::string help_format_list() {
    using namespace formats_detail;
    std::string out;
    for (const Format& f : formats())
        out += "  " + std::string(f.name) + " (" + extension_list(f) + "): " + f.holds + "\n";
    return out;
}

std::string man_format_list() {
    using namespace formats_detail;
    std::string out;
    for (const Format& f : formats()) {
        const std::string line =
            "  " + std::string(f.name) + " (" + extension_list(f) + "): " + f.holds;
        for (char c : line)
            out += c == '\\' ? std::string("\\e") : std::string(1, c);
        out += '\n';
    }
    return out;
}

}  // namespace attn::io
