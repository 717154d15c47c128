// AttnScope core — the single load entry point, through the table of formats.
// GPL-3.0-or-later.
#include "attn/io/load.hpp"

#include "../files/io_util.hpp"
#include "attn/io/formats.hpp"

namespace attn::io {

const char* to_string(FileKind kind) {
    for (const Format& f : formats())
        if (f.kind == kind) return f.id;
    return "?";
}

FileKind detect_format(const std::string& path) {
    return detect(path).kind;
}

Loaded load_any(const std::string& path, Progress* progress) {
    return detect(path).load(path, progress);
}

AttentionData load_attention(const std::string& path, Progress* progress) {
    const Format& f = detect(path);
    if (!f.attention)
        detail::fail(detail::base_name(path),
                     std::string("holds ") + (f.kind == FileKind::Tokens ? "tokens" : "a session") +
                         ", not attention data");
    return std::get<AttentionData>(f.load(path, progress));
}

}  // namespace attn::io
