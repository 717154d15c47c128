// AttnScope core — the one table of every format AttnScope opens: the open dialog's filter, the
// command line's --help, the man page and load_any are all made from it. GPL-3.0-or-later.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attn/io/load.hpp"

namespace attn::io {

/// One format AttnScope opens.
struct Format {
    FileKind kind;                        ///< what the file holds
    const char* id;                       ///< stable identifier (to_string(kind))
    const char* name;                     ///< what a user reads ("NumPy array"), untranslated
    const char* holds;                    ///< what a file of it holds, for --help and the man page
    std::vector<const char*> extensions;  ///< lower case, with the dot (".npy")
    std::vector<std::string_view> magic;  ///< opening bytes that identify it whatever its name
    /// A content test as strong as magic bytes (a session's "format"), or null.
    bool (*content)(std::string_view head) = nullptr;
    /// A weak content test, tried only when no magic and no extension matched, or null.
    bool (*fallback)(std::string_view head) = nullptr;
    /// Other extensions the open dialog offers for it (recognised by content, not by name).
    std::vector<const char*> dialog_extra = {};
    bool attention = false;  ///< holds attention: load_attention accepts it
    /// Reads the file.
    Loaded (*load)(const std::string& path, Progress* progress) = nullptr;
};

/// Every format, in the order the dialog and the help list them.
const std::vector<Format>& formats();

/// The format of a file: magic bytes (and content as strong), then extension, then weak
/// content; a file that matches nothing throws FormatError naming it, its size and every format.
const Format& detect(const std::string& path);

/// The open dialog's filter: everything, each format, all files (";;"-separated, Qt's syntax).
std::string open_dialog_filter();

/// The formats for --help: one "  name (extensions): holds" line each.
std::string help_format_list();

/// The man page's list of formats (roff lines between .nf and .fi, checked against the page).
std::string man_format_list();

}  // namespace attn::io
