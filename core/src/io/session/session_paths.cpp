// AttnScope core — where a session's data file and model folder are, relative to the session.
// GPL-3.0-or-later.
#include <algorithm>
#include <string>
#include <vector>

#include "attn/io/session/session.hpp"

namespace attn::io {
namespace {

/// PATH taken relative to the folder of SESSION_PATH unless absolute (or empty).
std::string relative_to_session(const std::string& session_path, const std::string& path) {
    if (path.empty() || path.front() == '/') return path;
    const auto slash = session_path.find_last_of('/');
    return slash == std::string::npos ? path : session_path.substr(0, slash + 1) + path;
}

}  // namespace

std::string resolved_data_path(const std::string& session_path, const Session& session) {
    return relative_to_session(session_path, session.data_path);
}

std::string resolved_model_path(const std::string& session_path, const Session& session) {
    return relative_to_session(session_path, session.model_path);
}

std::string relative_data_path(const std::string& session_path, const std::string& data) {
    if (data.empty()) return data;
    const bool absSession = !session_path.empty() && session_path.front() == '/';
    const bool absData = data.front() == '/';
    if (absSession != absData) return data;
    const auto split = [](const std::string& p) {
        std::vector<std::string> parts;
        std::size_t start = 0;
        while (start <= p.size()) {
            const std::size_t slash = std::min(p.find('/', start), p.size());
            const std::string part = p.substr(start, slash - start);
            if (part == "..") {
                if (!parts.empty() && parts.back() != "..")
                    parts.pop_back();
                else
                    parts.push_back(part);
            } else if (!part.empty() && part != ".") {
                parts.push_back(part);
            }
            start = slash + 1;
        }
        return parts;
    };
    std::vector<std::string> from = split(session_path), to = split(data);
    if (!from.empty()) from.pop_back();  // the session's folder
    std::size_t common = 0;
    while (common < from.size() && common + 1 < to.size() && from[common] == to[common])
        ++common;
    std::string out;
    for (std::size_t i = common; i < from.size(); ++i)
        out += "../";
    for (std::size_t i = common; i < to.size(); ++i)
        out += to[i] + (i + 1 < to.size() ? "/" : "");
    return out;
}

}  // namespace attn::io
