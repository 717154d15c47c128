// AttnScope core — the tokenizer a GGUF file embeds (tokenizer.ggml.*), run by the
// tokenizer.json machinery: the metadata is turned into the description Hugging Face's
// converters would have written, and that is loaded. GPL-3.0-or-later.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "attn/models/gguf_tokenizer.hpp"
#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

namespace gguf_tokenizer_detail {

using nlohmann::json;

// llama.cpp's token types (llama_token_type).
constexpr int kUnknown = 2, kControl = 3, kUserDefined = 4;

// The pre-tokenizer regular expressions of llama-vocab.cpp's pre types, as the tokenizer.json
// files of those models write them.
constexpr const char* kLlama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kQwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const std::vector<std::string>& strings(const GgufFile& f, const std::string& key) {
    const auto it = f.metadata().find(key);
    const auto* v =
        it == f.metadata().end() ? nullptr : std::get_if<std::vector<std::string>>(&it->second);
    if (!v)
        throw FormatError(f.path() + ": metadata \"" + key + "\" is " +
                          (it == f.metadata().end() ? "missing" : "not an array of strings") + ".");
    return *v;
}

/// The numbers at KEY, one per token (empty when absent).
std::vector<double> per_token(const GgufFile& f, const std::string& key, std::size_t tokens) {
    const auto it = f.metadata().find(key);
    if (it == f.metadata().end()) return {};
    const auto* v = std::get_if<std::vector<double>>(&it->second);
    if (!v || v->size() != tokens)
        throw FormatError(f.path() + ": metadata \"" + key + "\" is not an array of " +
                          std::to_string(tokens) + " numbers, one per token.");
    return *v;
}

bool flag(const GgufFile& f, const std::string& key, bool fallback) {
    const auto it = f.metadata().find(key);
    if (it == f.metadata().end()) return fallback;
    if (const bool* b = std::get_if<bool>(&it->second)) return *b;
    throw FormatError(f.path() + ": metadata \"" + key + "\" is not true or false.");
}

/// The token id at KEY, or −1 when absent; refused when past the vocabulary.
long long token_id(const GgufFile& f, const std::string& key, std::size_t tokens) {
    if (!f.metadata().count(key)) return -1;
    const std::uint64_t id = f.integer(key, 0);
    if (id >= tokens)
        throw FormatError(f.path() + ": metadata \"" + key + "\" is " + std::to_string(id) +
                          ", past the " + std::to_string(tokens) + " tokens.");
    return (long long)id;
}

/// The lengths of the UTF-8 characters of S (one per byte where S is not valid UTF-8).
std::vector<std::size_t> char_ends(const std::string& s) {
    std::vector<std::size_t> ends;
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80         ? 1
                        : (c >> 5) == 6  ? 2
                        : (c >> 4) == 14 ? 3
                        : (c >> 3) == 30 ? 4
                                         : 1;
        i = std::min(s.size(), i + n);
        ends.push_back(i);
    }
    return ends;
}

/// SentencePiece's merges from its scores, as the tokenizers library's SentencePieceExtractor
/// derives them: every split of a piece into two pieces of the vocabulary, ordered by the
/// piece's score (highest first), then the piece's id, then the two halves' ids.
json spm_merges(const std::vector<std::string>& tokens, const std::vector<double>& scores,
                const std::map<std::string, std::int32_t>& vocab) {
    std::vector<std::tuple<double, std::int32_t, std::int32_t, std::int32_t>> found;
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        const std::string& piece = tokens[id];
        const std::vector<std::size_t> ends = char_ends(piece);
        for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
            const auto l = vocab.find(piece.substr(0, ends[k]));
            const auto r = vocab.find(piece.substr(ends[k]));
            if (l != vocab.end() && r != vocab.end())
                found.emplace_back(-scores[id], std::int32_t(id), l->second, r->second);
        }
    }
    std::sort(found.begin(), found.end());
    json merges = json::array();
    for (const auto& [score, id, l, r] : found)
        merges.push_back(json::array({tokens[std::size_t(l)], tokens[std::size_t(r)]}));
    return merges;
}

json template_processing(const std::vector<std::string>& tokens, long long bos, long long eos) {
    json single = json::array(), special = json::object();
    const auto add = [&](long long id) {
        const std::string& t = tokens[std::size_t(id)];
        single.push_back({{"SpecialToken", {{"id", t}, {"type_id", 0}}}});
        special[t] = {{"id", t}, {"ids", json::array({id})}, {"tokens", json::array({t})}};
    };
    if (bos >= 0) add(bos);
    single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
    if (eos >= 0) add(eos);
    return {{"type", "TemplateProcessing"},
            {"single", single},
            {"pair", single},
            {"special_tokens", special}};
}

}  // namespace gguf_tokenizer_detail

std::shared_ptr<const Tokenizer> gguf_tokenizer(const GgufFile& f) {
    namespace gt = gguf_tokenizer_detail;
    using gt::json;
    const std::string kind = f.string("tokenizer.ggml.model");
    if (kind != "gpt2" && kind != "llama")
        throw FormatError(f.path() + ": tokenizer.ggml.model \"" + kind +
                          "\" is not supported (AttnScope reads gpt2 and llama)");
    const std::vector<std::string>& tokens = gt::strings(f, "tokenizer.ggml.tokens");
    if (tokens.empty() || tokens.size() > (1u << 24))
        throw FormatError(f.path() + ": tokenizer.ggml.tokens holds " +
                          std::to_string(tokens.size()) + " tokens.");
    const std::vector<double> types = gt::per_token(f, "tokenizer.ggml.token_type", tokens.size());
    const auto type_of = [&](std::size_t id) { return types.empty() ? 1 : int(types[id]); };
    std::map<std::string, std::int32_t> vocab;
    json added = json::array();
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        vocab.emplace(tokens[id], std::int32_t(id));  // a repeated token keeps its first id
        const int t = type_of(id);
        if (t == gt::kControl || t == gt::kUnknown || t == gt::kUserDefined)
            added.push_back({{"id", id},
                             {"content", tokens[id]},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", t != gt::kUserDefined}});
    }
    const long long bos = gt::token_id(f, "tokenizer.ggml.bos_token_id", tokens.size());
    const long long eos = gt::token_id(f, "tokenizer.ggml.eos_token_id", tokens.size());
    const long long unk = gt::token_id(f, "tokenizer.ggml.unknown_token_id", tokens.size());
    gt::token_id(f, "tokenizer.ggml.padding_token_id", tokens.size());  // checked, not used
    json j = {
        {"version", "1.0"}, {"added_tokens", added}, {"truncation", nullptr}, {"padding", nullptr}};
    json model = {{"type", "BPE"}, {"dropout", nullptr}, {"vocab", vocab}};
    bool add_bos = false;
    if (kind == "gpt2") {
        const std::string pre = f.metadata().count("tokenizer.ggml.pre")
                                    ? f.string("tokenizer.ggml.pre")
                                    : std::string("default");
        const json byte_level = {{"type", "ByteLevel"},
                                 {"add_prefix_space", false},
                                 {"trim_offsets", false},
                                 {"use_regex", pre == "default" || pre == "gpt2"}};
        j["normalizer"] = nullptr;
        if (pre == "default" || pre == "gpt2") {
            j["pre_tokenizer"] = byte_level;
        } else if (pre == "llama-bpe" || pre == "llama3" || pre == "qwen2") {
            const json split = {{"type", "Split"},
                                {"pattern", {{"Regex", pre == "qwen2" ? gt::kQwen2 : gt::kLlama3}}},
                                {"behavior", "Isolated"},
                                {"invert", false}};
            j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {split, byte_level}}};
            if (pre == "qwen2") j["normalizer"] = {{"type", "NFC"}};
            model["ignore_merges"] = pre != "qwen2";
            add_bos = pre != "qwen2";
        } else {
            throw FormatError(f.path() + ": tokenizer.ggml.pre \"" + pre +
                              "\" is not supported (AttnScope reads default, gpt2, llama-bpe, "
                              "llama3 and qwen2)");
        }
        json merges = json::array();
        for (const std::string& m : gt::strings(f, "tokenizer.ggml.merges")) {
            const auto space = m.find(' ');
            if (space == std::string::npos || m.find(' ', space + 1) != std::string::npos)
                throw FormatError(f.path() + ": tokenizer.ggml.merges holds \"" + m.substr(0, 80) +
                                  "\", not two tokens separated by one space.");
            merges.push_back(json::array({m.substr(0, space), m.substr(space + 1)}));
        }
        model["merges"] = std::move(merges);
        j["decoder"] = byte_level;
    } else {
        const std::vector<double> scores = gt::per_token(f, "tokenizer.ggml.scores", tokens.size());
        if (scores.empty())
            throw FormatError(f.path() + ": metadata \"tokenizer.ggml.scores\" is missing.");
        model["merges"] = gt::spm_merges(tokens, scores, vocab);
        model["byte_fallback"] = true;
        model["fuse_unk"] = true;
        if (unk >= 0) model["unk_token"] = tokens[std::size_t(unk)];
        const json replace = {
            {"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
        j["normalizer"] =
            gt::flag(f, "tokenizer.ggml.add_space_prefix", true)
                ? json{{"type", "Sequence"},
                       {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}}, replace}}}
                : replace;
        j["pre_tokenizer"] = nullptr;
        j["decoder"] = {
            {"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
        add_bos = true;
    }
    j["model"] = std::move(model);
    add_bos = gt::flag(f, "tokenizer.ggml.add_bos_token", add_bos) && bos >= 0;
    const bool add_eos = gt::flag(f, "tokenizer.ggml.add_eos_token", false) && eos >= 0;
    j["post_processor"] =
        add_bos || add_eos ? gt::template_processing(tokens, add_bos ? bos : -1, add_eos ? eos : -1)
                           : json(nullptr);
    std::string text;
    try {
        text = j.dump();
    } catch (const json::exception&) {
        throw FormatError(f.path() +
                          ": a token of tokenizer.ggml.tokens or .merges is not "
                          "valid UTF-8.");
    }
    return std::make_shared<const tok::HfTokenizer>(
        tok::HfTokenizer::parse(text, f.path() + " (its tokenizer)"));
}

}  // namespace attn::model
