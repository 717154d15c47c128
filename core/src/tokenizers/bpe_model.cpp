// AttnScope core — tokenizer.json's BPE model, as the tokenizers library merges.
// GPL-3.0-or-later.
#include <cstdio>
#include <optional>
#include <queue>

#include "models.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

std::unordered_map<std::string, std::int32_t> read_vocab(const Json& v, const Where& w) {
    if (!v.is_object()) w.fail(std::string("must be a {token: id} object, not ") + v.type_name());
    std::unordered_map<std::string, std::int32_t> vocab;
    vocab.reserve(v.size());
    for (const auto& [token, id] : v.items()) {
        // The place is spelled out only for a bad id: building it for each of 262,144 tokens
        // would be a third of the load.
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
            id.get<std::int64_t>() >= kMaxId)
            as_int(id, 0, kMaxId - 1, w.at("\"" + token + "\""));
        vocab.emplace(token, std::int32_t(id.get<std::int64_t>()));
    }
    return vocab;
}

namespace {

std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

constexpr std::size_t kCacheWords = 100000;  // then words are merged again, not remembered

}  // namespace

BpeModel::BpeModel(const Json& j, const Where& w, VocabMap* vocab) {
    vocab_ = vocab ? std::move(*vocab) : read_vocab(need(j, "vocab", w), w.at("vocab"));
    if (const Json* d = opt(j, "dropout", w); d && !d->is_number())
        w.at("dropout").fail("must be a number or null");  // dropout itself is for training
    const std::string unk = opt_string(j, "unk_token", "", w);
    if (!unk.empty()) {
        const auto it = vocab_.find(unk);
        if (it == vocab_.end()) w.at("unk_token").fail("\"" + unk + "\" is not in the vocabulary");
        unk_ = it->second;
    }
    fuse_unk_ = opt_bool(j, "fuse_unk", false, w);
    byte_fallback_ = opt_bool(j, "byte_fallback", false, w);
    ignore_merges_ = opt_bool(j, "ignore_merges", false, w);
    prefix_ = opt_string(j, "continuing_subword_prefix", "", w);
    suffix_ = opt_string(j, "end_of_word_suffix", "", w);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const auto it = vocab_.find(name);
        byte_ids_[std::size_t(b)] = it == vocab_.end() ? -1 : it->second;
    }

    const Json& merges = need_array(j, "merges", w);
    merges_.reserve(merges.size());
    for (std::size_t r = 0; r < merges.size(); ++r) {
        const auto at = [&] { return w.at("merges").at(r); };
        const Json& m = merges[r];
        std::string a, b;
        if (m.is_string()) {
            const std::string s = m.get<std::string>();
            const auto space = s.find(' ');
            if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                at().fail("\"" + s + "\" is not a merge \"left right\"");
            a = s.substr(0, space), b = s.substr(space + 1);
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            a = m[0].get<std::string>(), b = m[1].get<std::string>();
        } else {
            at().fail("must be \"left right\" or [\"left\", \"right\"], not " + m.dump());
        }
        const auto ia = vocab_.find(a), ib = vocab_.find(b);
        if (ia == vocab_.end() || ib == vocab_.end())
            at().fail("merges \"" + (ia == vocab_.end() ? a : b) +
                      "\", which is not in the vocabulary");
        const std::string right =
            !prefix_.empty() && b.rfind(prefix_, 0) == 0 ? b.substr(prefix_.size()) : b;
        const auto merged = vocab_.find(a + right);
        if (merged == vocab_.end())
            at().fail("makes \"" + a + right + "\", which is not in the vocabulary");
        merges_[pair_key(ia->second, ib->second)] = {std::int32_t(r), merged->second};
    }
}

std::vector<std::int32_t> BpeModel::merge_word(std::string_view w) const {
    struct Symbol {
        std::int32_t id;
        std::int32_t prev, next;
        bool gone;
    };
    std::vector<Symbol> sym;
    sym.reserve(w.size());
    const auto add = [&](std::int32_t id) {
        sym.push_back({id, std::int32_t(sym.size()) - 1, -1, false});
    };
    std::optional<std::int32_t> pending_unk;
    for (std::size_t i = 0; i < w.size();) {
        const std::size_t b = i;
        next_cp(w, i);
        std::string s(w.substr(b, i - b));
        if (b > 0) s = prefix_ + s;
        if (i == w.size()) s += suffix_;
        if (const auto it = vocab_.find(s); it != vocab_.end()) {
            if (pending_unk) add(*pending_unk), pending_unk.reset();
            add(it->second);
            continue;
        }
        if (byte_fallback_) {
            bool all = true;
            for (const unsigned char c : s)
                all = all && byte_ids_[c] >= 0;
            if (all) {
                // The tokenizers library adds these without flushing a pending unknown.
                for (const unsigned char c : s)
                    add(byte_ids_[c]);
                continue;
            }
        }
        if (unk_) {
            if (pending_unk && !fuse_unk_) add(*pending_unk);
            pending_unk = unk_;
        }
    }
    if (pending_unk) add(*pending_unk);
    for (std::size_t k = 0; k + 1 < sym.size(); ++k)
        sym[k].next = std::int32_t(k + 1);

    struct Entry {
        std::int32_t rank, pos, id;
        bool operator>(const Entry& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    const auto lookup = [&](std::int32_t a, std::int32_t b) -> const Merge* {
        const auto it = merges_.find(pair_key(a, b));
        return it == merges_.end() ? nullptr : &it->second;
    };
    for (std::size_t k = 0; k + 1 < sym.size(); ++k)
        if (const Merge* m = lookup(sym[k].id, sym[k + 1].id))
            queue.push({m->rank, std::int32_t(k), m->id});
    while (!queue.empty()) {
        const Entry top = queue.top();
        queue.pop();
        Symbol& cur = sym[std::size_t(top.pos)];
        if (cur.gone || cur.next < 0) continue;
        const Symbol right = sym[std::size_t(cur.next)];
        const Merge* m = lookup(cur.id, right.id);
        if (!m || m->id != top.id) continue;  // an entry that an earlier merge made stale
        cur.id = top.id;
        sym[std::size_t(cur.next)].gone = true;
        cur.next = right.next;
        if (right.next >= 0) sym[std::size_t(right.next)].prev = top.pos;
        if (cur.prev >= 0)
            if (const Merge* pm = lookup(sym[std::size_t(cur.prev)].id, cur.id))
                queue.push({pm->rank, cur.prev, pm->id});
        if (cur.next >= 0)
            if (const Merge* nm = lookup(cur.id, sym[std::size_t(cur.next)].id))
                queue.push({nm->rank, top.pos, nm->id});
    }
    std::vector<std::int32_t> ids;
    for (const Symbol& s : sym)
        if (!s.gone) ids.push_back(s.id);
    return ids;
}

void BpeModel::tokenize(std::string_view word, std::vector<std::int32_t>& out) const {
    if (word.empty()) return;
    if (ignore_merges_)
        if (const auto it = vocab_.find(std::string(word)); it != vocab_.end()) {
            out.push_back(it->second);
            return;
        }
    {
        const std::lock_guard<std::mutex> lock(cache_mutex_);
        if (const auto it = cache_.find(std::string(word)); it != cache_.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    std::vector<std::int32_t> ids = merge_word(word);
    out.insert(out.end(), ids.begin(), ids.end());
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() < kCacheWords) cache_.emplace(std::string(word), std::move(ids));
}

}  // namespace attn::tok::detail
