// AttnScope core — reading a tokenizer.json into its stages. GPL-3.0-or-later.
#include <filesystem>

#include "../files/io_util.hpp"
#include "attn/util/error.hpp"
#include "tokenizer_data.hpp"

namespace attn::tok {

namespace detail {

namespace {

void read_added(HfTokenizerData& d, const Json& j, const Where& w) {
    const Json* list = opt(j, "added_tokens", w);
    if (!list) return;
    const Where lw = w.at("added_tokens");
    if (!list->is_array()) lw.fail("must be an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json& t = (*list)[i];
        const Where tw = lw.at(i);
        AddedToken a;
        a.id = std::int32_t(need_int(t, "id", 0, kMaxId - 1, tw));
        a.content = need_string(t, "content", tw);
        if (a.content.empty()) tw.at("content").fail("is empty");
        a.single_word = opt_bool(t, "single_word", false, tw);
        a.lstrip = opt_bool(t, "lstrip", false, tw);
        a.rstrip = opt_bool(t, "rstrip", false, tw);
        a.normalized = opt_bool(t, "normalized", true, tw);
        a.special = opt_bool(t, "special", false, tw);
        // The tokenizers library gives a token of the model's vocabulary the model's id,
        // whatever id the file wrote beside it.
        const auto& vocab = d.model->vocab();
        if (const auto it = vocab.find(a.content); it != vocab.end()) a.id = it->second;
        d.added.push_back(std::move(a));
    }
    std::vector<const AddedToken*> raw, norm;
    std::vector<std::string> raw_text, norm_text;
    for (const AddedToken& a : d.added) {
        d.added_ids[a.content] = a.id;
        if (a.normalized) {
            norm.push_back(&a);
            norm_text.push_back(d.normalizer ? d.normalizer->normalize(a.content) : a.content);
        } else {
            raw.push_back(&a);
            raw_text.push_back(a.content);
        }
    }
    d.raw_added.build(raw, raw_text);
    d.normalized_added.build(norm, norm_text);
}

}  // namespace

std::shared_ptr<HfTokenizerData> build_tokenizer(const Json& j, const std::string& name,
                                                 VocabMap* vocab) {
    auto d = std::make_shared<HfTokenizerData>();
    d->name = name;
    const Where root{&d->name, ""};
    if (!j.is_object()) root.fail(std::string("must be a JSON object, not ") + j.type_name());
    if (const Json* n = opt(j, "normalizer", root))
        d->normalizer = make_normalizer(*n, root.at("normalizer"));
    if (const Json* p = opt(j, "pre_tokenizer", root))
        d->pre_tokenizer = make_pre_tokenizer(*p, root.at("pre_tokenizer"));
    d->model = make_model(need(j, "model", root), root.at("model"), vocab);
    if (const Json* p = opt(j, "post_processor", root))
        d->post_processor = make_post_processor(*p, root.at("post_processor"));
    if (const Json* p = opt(j, "decoder", root)) d->decoder = make_decoder(*p, root.at("decoder"));
    read_added(*d, j, root);

    std::size_t size = 0;
    for (const auto& [token, id] : d->model->vocab())
        size = std::max(size, std::size_t(id) + 1);
    for (const AddedToken& a : d->added)
        size = std::max(size, std::size_t(a.id) + 1);
    if (size == 0) root.at("model.vocab").fail("is empty");
    d->id_to_token.assign(size, {});
    d->special.assign(size, 0);
    for (const auto& [token, id] : d->model->vocab())
        d->id_to_token[std::size_t(id)] = token;
    for (const AddedToken& a : d->added) {
        d->id_to_token[std::size_t(a.id)] = a.content;
        d->special[std::size_t(a.id)] = a.special;
    }
    return d;
}

}  // namespace detail

namespace {

/// JSON parsed as a plain tree; throws FormatError naming NAME and where the text goes wrong.
detail::Json parse_plainly(std::string_view json, const std::string& name) {
    try {
        return detail::Json::parse(json);
    } catch (const detail::Json::parse_error& e) {
        // nlohmann counts the bytes read, 1 past the last one when the text ends early.
        if (e.byte > json.size())
            throw FormatError(name + ": not valid JSON (the file ends after its " +
                              std::to_string(json.size()) + " bytes inside a value: truncated?)");
        throw FormatError(name + ": not valid JSON (at byte " +
                          std::to_string(e.byte > 0 ? e.byte - 1 : 0) + " of " +
                          std::to_string(json.size()) + ", counted from 0)");
    } catch (const detail::Json::exception&) {
        throw FormatError(name + ": not valid JSON");
    }
}

}  // namespace

HfTokenizer HfTokenizer::parse(std::string_view json, const std::string& name) {
    detail::Json j;
    std::optional<detail::VocabMap> vocab;
    if (!detail::parse_with_vocab(json, j, vocab)) {
        // Not read with its vocabulary apart: parsed plainly, whose errors say what is wrong.
        vocab.reset();
        j = parse_plainly(json, name);
    }
    try {
        return HfTokenizer(detail::build_tokenizer(j, name, vocab ? &*vocab : nullptr));
    } catch (const detail::Json::exception&) {  // a shape no check above foresaw
        throw FormatError(name + ": not a tokenizer.json of a form AttnScope reads");
    }
}

HfTokenizer HfTokenizer::load(const std::string& path) {
    constexpr std::uintmax_t kMaxBytes = std::uintmax_t(1) << 30;
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxBytes)
        throw FormatError(path + ": " + std::to_string(size) +
                          " bytes, more than the 1 GiB a tokenizer.json may have");
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    return parse(io::detail::as_chars(bytes), path);
}

}  // namespace attn::tok
