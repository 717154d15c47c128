// AttnScope core — token sequences and explicit embeddings. GPL-3.0-or-later.
#include "attn/io/json/tokens.hpp"

#include <charconv>
#include <cmath>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/npy.hpp"

namespace attn::io {

namespace {

using detail::fail;

bool blank(std::string_view s) {
    return s.find_first_not_of(" \t\f\v") == std::string_view::npos;
}

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\f\v\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\f\v\r");
    return s.substr(b, e - b + 1);
}

/// Splits text into lines (LF or CRLF), with each line's starting byte offset.
std::vector<std::pair<std::string_view, std::size_t>> lines_of(std::string_view text,
                                                               std::size_t base) {
    std::vector<std::pair<std::string_view, std::size_t>> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view line = text.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.emplace_back(line, base + start);
        if (nl == text.size()) break;
        start = nl + 1;
    }
    return out;
}

}  // namespace

TokenText parse_token_text(std::string_view bytes, const std::string& name) {
    std::size_t base = 0;
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") base = 3;
    const std::string_view text = bytes.substr(base);
    if (auto bad = detail::invalid_utf8_offset(text); bad != std::string_view::npos)
        fail(name, "invalid UTF-8 at byte " + std::to_string(base + bad));
    if (auto nul = text.find('\0'); nul != std::string_view::npos)
        fail(name, "NUL byte at byte " + std::to_string(base + nul) + " (not a text file)");
    std::vector<std::string_view> kept;
    for (const auto& [line, off] : lines_of(text, base))
        if (!blank(line)) kept.push_back(line);
    if (kept.empty()) fail(name, "holds no tokens (the file is empty or blank)");
    TokenText t;
    if (kept.size() == 1) {
        t.text = std::string(trim(kept[0]));
    } else {
        for (auto line : kept)
            t.tokens.emplace_back(line);
    }
    return t;
}

TokenText load_token_text(const std::string& path) {
    const auto bytes = detail::read_whole_file(path);
    return parse_token_text(detail::as_chars(bytes), detail::base_name(path));
}

Matrix parse_embeddings_csv(std::string_view text, const std::string& name) {
    std::size_t base = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") base = 3;
    std::vector<std::vector<float>> rows;
    std::size_t line_no = 0;
    for (const auto& [line, off] : lines_of(text.substr(base), base)) {
        ++line_no;
        if (blank(line)) continue;
        std::vector<float> row;
        std::size_t col = 0, start = 0;
        for (;;) {
            ++col;
            auto comma = line.find(',', start);
            if (comma == std::string_view::npos) comma = line.size();
            const std::string_view cell = trim(line.substr(start, comma - start));
            float v = 0;
            const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
            const std::string where =
                "line " + std::to_string(line_no) + ", column " + std::to_string(col);
            if (ec == std::errc::result_out_of_range && ptr == cell.data() + cell.size())
                fail(name, where + ": " + std::string(cell) + " is outside the range of a float");
            if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size()) {
                std::string shown(cell.substr(0, 40));
                if (detail::invalid_utf8_offset(shown) != std::string::npos) shown = "…";
                fail(name, where + ": '" + shown + "' is not a number");
            }
            if (!std::isfinite(v)) fail(name, where + ": " + std::string(cell) + " is not finite");
            row.push_back(v);
            if (comma == line.size()) break;
            start = comma + 1;
        }
        if (!rows.empty() && row.size() != rows[0].size())
            fail(name, "line " + std::to_string(line_no) + " has " + std::to_string(row.size()) +
                           " values, expected " + std::to_string(rows[0].size()));
        rows.push_back(std::move(row));
    }
    if (rows.empty()) fail(name, "holds no rows of numbers");
    Matrix m(static_cast<Index>(rows.size()), static_cast<Index>(rows[0].size()));
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j)
            m(static_cast<Index>(i), static_cast<Index>(j)) = rows[i][j];
    return m;
}

Matrix load_embeddings(const std::string& path) {
    const std::string name = detail::base_name(path);
    if (detail::extension(path) == ".csv") {
        const auto bytes = detail::read_whole_file(path);
        return parse_embeddings_csv(detail::as_chars(bytes), name);
    }
    NpyFile f(path);
    if (f.header().shape.size() != 2)
        fail(name, "embeddings must be a 2-D [n, d] array, got " +
                       detail::shape_string(f.header().shape));
    if (f.header().count() == 0)
        fail(name, "embeddings are empty (" + detail::shape_string(f.header().shape) + ")");
    return f.matrix(0);
}

void check_embeddings(const Matrix& embeddings, std::size_t tokens, const std::string& name) {
    if (static_cast<std::size_t>(embeddings.rows()) != tokens)
        fail(name, "holds " + std::to_string(embeddings.rows()) + " embedding rows but there are " +
                       std::to_string(tokens) + " tokens");
}

}  // namespace attn::io
