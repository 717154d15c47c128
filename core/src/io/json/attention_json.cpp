// AttnScope core — BertViz and CircuitsVis JSON payloads. GPL-3.0-or-later.
#include "attn/io/json/attention_json.hpp"

#include <cmath>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "json_util.hpp"

namespace attn::io {

namespace {

using detail::fail;
using nlohmann::json;

/// Converts nested lists of exactly `dims.size()` levels into layers·heads matrices, checking
/// every list against the sizes found in the first entries.
class TensorReader {
  public:
    TensorReader(const std::string& name, Progress* progress) : name_(name), progress_(progress) {}

    /// Reads [L][H][Nq][Nk] (depth 4), [H][Nq][Nk] (depth 3) or [Nq][Nk] (depth 2).
    std::vector<Matrix> read(const json& t, const std::string& path, int depth, Index& layers,
                             Index& heads) {
        std::vector<std::size_t> dims;
        const json* p = &t;
        std::string at = path;
        for (int d = 0; d < depth; ++d) {
            if (!p->is_array())
                fail(name_, at + " is " + detail::json_kind(*p) + ", expected a list (" +
                                std::to_string(depth) + " nested levels of lists)");
            if (p->empty())
                fail(name_, at + " is an empty list" + (d >= depth - 2 ? " (zero tokens)" : ""));
            dims.push_back(p->size());
            p = &(*p)[0];
            at += "[0]";
        }
        layers = depth == 4 ? static_cast<Index>(dims[0]) : 1;
        heads = depth >= 3 ? static_cast<Index>(dims[static_cast<std::size_t>(depth) - 3]) : 1;
        const std::size_t rows = dims[static_cast<std::size_t>(depth) - 2];
        const std::size_t cols = dims.back();
        std::vector<Matrix> mats;
        const std::size_t total = static_cast<std::size_t>(layers * heads);
        mats.reserve(total);
        walk(t, path, 0, depth - 2, dims, mats, rows, cols, total);
        return mats;
    }

  private:
    void check_list(const json& j, const std::string& path, std::size_t expected) {
        if (!j.is_array())
            fail(name_, path + " is " + detail::json_kind(j) + ", expected a list of " +
                            std::to_string(expected));
        if (j.size() != expected)
            fail(name_, path + " has " + std::to_string(j.size()) + " entries, expected " +
                            std::to_string(expected));
    }
    void walk(const json& j, const std::string& path, int level, int outer,
              const std::vector<std::size_t>& dims, std::vector<Matrix>& mats, std::size_t rows,
              std::size_t cols, std::size_t total) {
        if (level == outer) {
            check_list(j, path, rows);
            // Every row's length is checked before allocating rows × cols: a long first row
            // followed by empty ones must not make a tiny file allocate gigabytes.
            for (std::size_t i = 0; i < rows; ++i)
                check_list(j[i], path + "[" + std::to_string(i) + "]", cols);
            Matrix m(static_cast<Index>(rows), static_cast<Index>(cols));
            for (std::size_t i = 0; i < rows; ++i) {
                const json& row = j[i];
                const std::string rp = path + "[" + std::to_string(i) + "]";
                for (std::size_t k = 0; k < cols; ++k) {
                    const json& v = row[k];
                    if (!v.is_number())
                        fail(name_, rp + "[" + std::to_string(k) + "] is " + detail::json_kind(v) +
                                        ", expected a number");
                    const float f = detail::narrow(v.get<double>());
                    if (!std::isfinite(f))
                        fail(name_, rp + "[" + std::to_string(k) + "] is not a finite float (" +
                                        v.dump() + ")");
                    m(static_cast<Index>(i), static_cast<Index>(k)) = f;
                }
            }
            mats.push_back(std::move(m));
            report(progress_, static_cast<double>(mats.size()) / static_cast<double>(total));
            return;
        }
        check_list(j, path, dims[static_cast<std::size_t>(level)]);
        for (std::size_t i = 0; i < j.size(); ++i)
            walk(j[i], path + "[" + std::to_string(i) + "]", level + 1, outer, dims, mats, rows,
                 cols, total);
    }

    const std::string& name_;
    Progress* progress_;
};

std::vector<std::string> read_tokens(const json& parent, const char* key, const std::string& path,
                                     const std::string& name) {
    const std::string at = path + "." + key;
    if (!parent.contains(key)) fail(name, at + " is missing");
    const json& t = parent[key];
    if (!t.is_array())
        fail(name, at + " is " + detail::json_kind(t) + ", expected a list of tokens");
    if (t.empty()) fail(name, at + " is empty (zero tokens)");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i].is_string())
            out.push_back(t[i].get<std::string>());
        else if (t[i].is_number())
            out.push_back(t[i].dump());  // some payloads label positions with numbers
        else
            fail(name, at + "[" + std::to_string(i) + "] is " + detail::json_kind(t[i]) +
                           ", expected a string");
    }
    return out;
}

void match_tokens(const AttentionComponent& c, const std::string& path, const std::string& name) {
    const Index nq = c.mats[0].rows(), nk = c.mats[0].cols();
    if (static_cast<Index>(c.q_tokens.size()) != nq)
        fail(name, path + ".left_text has " + std::to_string(c.q_tokens.size()) +
                       " tokens but the attention matrices have " + std::to_string(nq) + " rows");
    if (static_cast<Index>(c.k_tokens.size()) != nk)
        fail(name, path + ".right_text has " + std::to_string(c.k_tokens.size()) +
                       " tokens but the attention matrices have " + std::to_string(nk) +
                       " columns");
}

AttentionComponent bertviz_component(const json& obj, const std::string& path,
                                     std::string comp_name, const std::string& name,
                                     Progress* progress) {
    if (!obj.is_object())
        fail(name, path + " is " + detail::json_kind(obj) +
                       ", expected an object with \"attn\", \"left_text\" and \"right_text\"");
    if (!obj.contains("attn")) fail(name, path + ".attn is missing");
    AttentionComponent c;
    c.name = std::move(comp_name);
    c.q_tokens = read_tokens(obj, "left_text", path, name);
    c.k_tokens = read_tokens(obj, "right_text", path, name);
    TensorReader reader(name, progress);
    c.mats = reader.read(obj["attn"], path + ".attn", 4, c.layers, c.heads);
    match_tokens(c, path, name);
    c.are_scores = false;
    check_weights(c, name + ": " + path + ".attn");
    return c;
}

AttentionData circuitsvis(const json& root, const std::string& name, Progress* progress) {
    const json& a = root["attention"];
    int depth = 0;
    for (const json* p = &a; p->is_array() && !p->empty() && depth < 5; p = &(*p)[0])
        ++depth;
    if (depth != 3 && depth != 2)
        fail(name, "attention is nested " + std::to_string(depth) +
                       " lists deep, expected [heads][dest][src] (3) or [dest][src] (2)");
    AttentionComponent c;
    c.name = "attention";
    TensorReader reader(name, progress);
    c.mats = reader.read(a, "attention", depth, c.layers, c.heads);
    if (!root.contains("tokens")) {
        for (Index i = 0; i < c.mats[0].rows(); ++i)
            c.q_tokens.push_back(std::to_string(i));
        for (Index j = 0; j < c.mats[0].cols(); ++j)
            c.k_tokens.push_back(std::to_string(j));
    } else {
        c.q_tokens = c.k_tokens = read_tokens(root, "tokens", "", name);
        const Index n = static_cast<Index>(c.q_tokens.size());
        if (c.mats[0].rows() != n || c.mats[0].cols() != n)
            fail(name,
                 ".tokens has " + std::to_string(n) + " tokens but the attention matrices are " +
                     std::to_string(c.mats[0].rows()) + "×" + std::to_string(c.mats[0].cols()));
    }
    check_weights(c, name + ": attention");
    AttentionData d;
    d.source = name;
    d.components.push_back(std::move(c));
    return d;
}

}  // namespace

AttentionData parse_attention_json(std::string_view text, const std::string& name,
                                   Progress* progress) {
    const json root = detail::parse_json(text, name);
    if (!root.is_object())
        fail(name, "the top level is " + detail::json_kind(root) +
                       ", expected an object with an \"attention\" key");
    if (!root.contains("attention"))
        fail(name,
             "no \"attention\" key at the top level (expected a BertViz or CircuitsVis "
             "payload)");
    const json& a = root["attention"];
    AttentionData data;
    data.source = name;
    if (a.is_array()) {
        if (a.empty()) fail(name, "attention is an empty list");
        if (!a[0].is_object()) return circuitsvis(root, name, progress);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string path = "attention[" + std::to_string(i) + "]";
            std::string comp;
            if (a[i].is_object() && a[i].contains("name") && a[i]["name"].is_string())
                comp = a[i]["name"].get<std::string>();
            data.components.push_back(bertviz_component(a[i], path, comp, name, progress));
        }
    } else if (a.is_object()) {
        // BertViz's menu order; json objects iterate alphabetically, which put "aa" first.
        std::vector<std::string> keys;
        for (const char* k : {"all", "aa", "ab", "ba", "bb"})
            if (a.contains(k)) keys.emplace_back(k);
        for (const auto& [key, value] : a.items())
            if (key != "all" && key != "aa" && key != "ab" && key != "ba" && key != "bb")
                keys.push_back(key);
        for (const std::string& key : keys) {
            const json& value = a[key];
            if (!value.is_object()) continue;  // not a filter entry
            data.components.push_back(
                bertviz_component(value, "attention." + key, key, name, progress));
        }
        if (data.components.empty())
            fail(name,
                 "attention holds no filter entries (\"all\", \"aa\", \"ab\", …) with "
                 "\"attn\" matrices");
        // Open where BertViz opens: its default_filter, else "all" (first when present).
        if (const auto f = root.find("default_filter"); f != root.end() && f->is_string())
            for (std::size_t i = 0; i < data.components.size(); ++i)
                if (data.components[i].name == f->get<std::string>())
                    data.default_component = static_cast<Index>(i);
    } else {
        fail(name, "attention is " + detail::json_kind(a) + ", expected a list or an object");
    }
    return data;
}

std::string component_title(const std::string& name) {
    if (name == "all") return "All tokens";
    if (name.size() == 2 && (name[0] == 'a' || name[0] == 'b') &&
        (name[1] == 'a' || name[1] == 'b'))
        return std::string("Sentence ") + char(name[0] - 'a' + 'A') + " → " +
               char(name[1] - 'a' + 'A');
    return name;
}

std::string component_row_note(const std::string& name) {
    if (component_title(name).rfind("Sentence ", 0) != 0) return {};
    const std::string from(1, char(name[0] - 'a' + 'A')), to(1, char(name[1] - 'a' + 'A'));
    return "a block of the attention over both sentences: each row holds only the weight a "
           "sentence-" +
           from + " query gives to sentence " + to +
           "'s keys, so rows sum to "
           "less than 1 (the rest goes to the other sentence)";
}

AttentionData load_attention_json(const std::string& path, Progress* progress) {
    const auto bytes = detail::read_whole_file(path);
    AttentionData d =
        parse_attention_json(detail::as_chars(bytes), detail::base_name(path), progress);
    d.source = path;
    return d;
}

}  // namespace attn::io
