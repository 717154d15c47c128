// AttnScope core — tokenizer.json parsed with its vocabulary read straight into a hash map.
// GPL-3.0-or-later.
#include "vocab_sax.hpp"

#include <vector>

namespace attn::tok::detail {
namespace {

/// nlohmann's tree builder for every event but those inside model.vocab, which fill VOCAB.
class VocabSax {
  public:
    explicit VocabSax(Json& out) : dom_(out, false) {}

    bool null() { return !in_vocab_ && dom_.null(); }
    bool boolean(bool v) { return !in_vocab_ && dom_.boolean(v); }
    bool number_integer(Json::number_integer_t v) {
        return !in_vocab_ && dom_.number_integer(v);  // a negative id: the plain parse says so
    }
    bool number_unsigned(Json::number_unsigned_t v) {
        if (!in_vocab_) return dom_.number_unsigned(v);
        if (v >= Json::number_unsigned_t(kMaxId)) return false;
        vocab_[std::move(key_)] = std::int32_t(v);  // the last of a repeated token, as the tree
        return true;
    }
    bool number_float(Json::number_float_t v, const std::string& s) {
        return !in_vocab_ && dom_.number_float(v, s);
    }
    bool string(std::string& v) { return !in_vocab_ && dom_.string(v); }
    bool binary(Json::binary_t& v) { return !in_vocab_ && dom_.binary(v); }
    bool start_object(std::size_t n) {
        if (in_vocab_) return false;
        // The object at model.vocab: the root is depth 1, "model" 2.
        in_vocab_ = keys_.size() == 2 && keys_[0] == "model" && keys_[1] == "vocab";
        saw_ = saw_ || in_vocab_;
        keys_.emplace_back();
        return dom_.start_object(in_vocab_ ? 0 : n);
    }
    bool key(std::string& k) {
        if (in_vocab_) {
            key_ = std::move(k);
            return true;
        }
        keys_.back() = k;
        return dom_.key(k);
    }
    bool end_object() {
        in_vocab_ = false;
        keys_.pop_back();
        return dom_.end_object();
    }
    bool start_array(std::size_t n) {
        if (in_vocab_) return false;
        keys_.emplace_back();
        return dom_.start_array(n);
    }
    bool end_array() {
        keys_.pop_back();
        return dom_.end_array();
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        return false;
    }

    /// The vocabulary read, if there was an object at model.vocab.
    std::optional<VocabMap> take() {
        if (!saw_) return std::nullopt;
        return std::move(vocab_);
    }

  private:
    nlohmann::detail::json_sax_dom_parser<Json> dom_;
    std::vector<std::string> keys_;  ///< the key of each open object (empty: an array)
    bool in_vocab_ = false, saw_ = false;
    std::string key_;
    VocabMap vocab_;
};

/// The entries of a top-level object of ids; anything else stops the parse.
class VocabObjectSax {
  public:
    explicit VocabObjectSax(VocabMap& vocab) : vocab_(vocab) {}

    bool null() { return false; }
    bool boolean(bool) { return false; }
    bool number_integer(Json::number_integer_t) { return false; }  // negative
    bool number_unsigned(Json::number_unsigned_t v) {
        if (depth_ != 1 || v >= Json::number_unsigned_t(kMaxId)) return false;
        vocab_[std::move(key_)] = std::int32_t(v);
        return true;
    }
    bool number_float(Json::number_float_t, const std::string&) { return false; }
    bool string(std::string&) { return false; }
    bool binary(Json::binary_t&) { return false; }
    bool start_object(std::size_t) { return ++depth_ == 1; }
    bool key(std::string& k) {
        key_ = std::move(k);
        return true;
    }
    bool end_object() { return --depth_ == 0; }
    bool start_array(std::size_t) { return false; }
    bool end_array() { return false; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        return false;
    }

  private:
    VocabMap& vocab_;
    int depth_ = 0;
    std::string key_;
};

}  // namespace

bool parse_vocab_object(std::string_view json, VocabMap& vocab) {
    VocabObjectSax sax(vocab);
    try {
        return Json::sax_parse(json.begin(), json.end(), &sax);
    } catch (const Json::exception&) {
        return false;
    }
}

bool parse_with_vocab(std::string_view json, Json& out, std::optional<VocabMap>& vocab) {
    VocabSax sax(out);
    try {
        if (!Json::sax_parse(json.begin(), json.end(), &sax)) return false;
    } catch (const Json::exception&) {
        return false;
    }
    vocab = sax.take();
    return true;
}

}  // namespace attn::tok::detail
