// AttnScope core — tokenizer.json post-processors (TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel, Sequence) for a single sequence with its special tokens.
// GPL-3.0-or-later.
#include <optional>

#include "parts.hpp"

namespace attn::tok::detail {

namespace {

/// The ids a template puts where its single sequence has pieces; an empty optional stands for
/// the sequence itself.
class TemplateProc final : public PostProcessor {
  public:
    std::vector<std::optional<std::vector<std::int32_t>>> items;
    void process(std::vector<std::int32_t>& ids) const override {
        std::vector<std::int32_t> out;
        for (const auto& item : items)
            if (item)
                out.insert(out.end(), item->begin(), item->end());
            else
                out.insert(out.end(), ids.begin(), ids.end());
        ids = std::move(out);
    }
};

class NoOpProc final : public PostProcessor {
  public:
    void process(std::vector<std::int32_t>&) const override {}
};

class SequenceProc final : public PostProcessor {
  public:
    std::vector<std::unique_ptr<PostProcessor>> parts;
    void process(std::vector<std::int32_t>& ids) const override {
        for (const auto& p : parts)
            p->process(ids);
    }
};

/// The id of a [token, id] pair such as BertProcessing's "cls".
std::int32_t pair_id(const Json& j, const char* key, const Where& w) {
    const Json& v = need(j, key, w);
    if (!v.is_array() || v.size() != 2 || !v[0].is_string())
        w.at(key).fail("must be [\"token\", id], not " + v.dump());
    return std::int32_t(as_int(v[1], 0, kMaxId - 1, w.at(key).at(1)));
}

std::unique_ptr<PostProcessor> make_template(const Json& j, const Where& w) {
    auto p = std::make_unique<TemplateProc>();
    const Json& special = j.contains("special_tokens") ? j["special_tokens"] : Json::object();
    if (!special.is_object()) w.at("special_tokens").fail("must be an object");
    const auto special_ids = [&](const std::string& name, const Where& at) {
        if (!special.contains(name))
            at.fail("names \"" + name + "\", which special_tokens does not define");
        const Where sw = w.at("special_tokens").at(name);
        const Json& ids = need_array(special[name], "ids", sw);
        std::vector<std::int32_t> out;
        for (std::size_t i = 0; i < ids.size(); ++i)
            out.push_back(std::int32_t(as_int(ids[i], 0, kMaxId - 1, sw.at("ids").at(i))));
        return out;
    };
    const Json& single = need(j, "single", w);
    const Where sw = w.at("single");
    if (single.is_string()) {  // "[CLS] $A [SEP]", as written by hand
        const std::string s = single.get<std::string>();
        std::size_t b = 0;
        while (b < s.size()) {
            const std::size_t e = std::min(s.find(' ', b), s.size());
            const std::string piece = s.substr(b, e - b);
            b = e + 1;
            if (piece.empty()) continue;
            if (piece[0] == '$')
                p->items.emplace_back();
            else
                p->items.emplace_back(special_ids(piece.substr(0, piece.find(':')), sw));
        }
        return p;
    }
    if (!single.is_array()) sw.fail("must be an array of pieces");
    for (std::size_t i = 0; i < single.size(); ++i) {
        const Json& item = single[i];
        const Where iw = sw.at(i);
        if (item.is_object() && item.contains("Sequence"))
            p->items.emplace_back();
        else if (item.is_object() && item.contains("SpecialToken"))
            p->items.emplace_back(
                special_ids(need_string(item["SpecialToken"], "id", iw.at("SpecialToken")), iw));
        else
            iw.fail("must be {\"Sequence\": …} or {\"SpecialToken\": …}, not " + item.dump());
    }
    return p;
}

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const Json& j, const Where& w) {
    const std::string type = type_of(j, w);
    if (type == "TemplateProcessing") return make_template(j, w);
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        auto p = std::make_unique<TemplateProc>();
        p->items.emplace_back(std::vector<std::int32_t>{pair_id(j, "cls", w)});
        p->items.emplace_back();
        p->items.emplace_back(std::vector<std::int32_t>{pair_id(j, "sep", w)});
        return p;
    }
    if (type == "ByteLevel") return std::make_unique<NoOpProc>();  // it only trims offsets
    if (type == "Sequence") {
        auto p = std::make_unique<SequenceProc>();
        const Json& list = need_array(j, "processors", w);
        for (std::size_t i = 0; i < list.size(); ++i)
            p->parts.push_back(make_post_processor(list[i], w.at("processors").at(i)));
        return p;
    }
    unsupported(type, w);
}

}  // namespace attn::tok::detail
