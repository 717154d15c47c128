// AttnScope core — .npz archives through libzip: the attention reader (npz_write.cpp writes).
// GPL-3.0-or-later.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "../../files/io_util.hpp"
#include "attn/files/mapped_file.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/memory_budget.hpp"
#include "npz_members.hpp"

namespace attn::io {

namespace {

using detail::check_npz_tokens;
using detail::fail;
using detail::open_zip;
using detail::read_member;
using detail::stored_member;
using detail::StreamedMember;
using detail::ZipPtr;

/// Queries of a component: its matrices' rows, or (read from its file) its query labels.
Index query_rows(const AttentionComponent& c) {
    return c.rows ? static_cast<Index>(c.q_tokens.size()) : c.mats[0].rows();
}
/// Keys of a component (see query_rows).
Index key_cols(const AttentionComponent& c) {
    return c.rows ? static_cast<Index>(c.k_tokens.size()) : c.mats[0].cols();
}

/// Reads member `key` ([L,H,N,d], laid out like an attention tensor) as per-head matrices.
std::vector<Matrix> read_vectors(std::map<std::string, std::vector<std::byte>>& members,
                                 const std::string& name, const std::string& key, Index* layers,
                                 Index* heads) {
    NpyView v(members[key], name + ": " + key + ".npy");
    AttentionComponent c = component_from_npy(v, key, false, nullptr);
    members.erase(key);  // its matrices hold the numbers now
    *layers = c.layers;
    *heads = c.heads;
    return std::move(c.mats);
}

std::string dims(Index l, Index h, const Matrix& m) {
    return std::to_string(l) + "×" + std::to_string(h) + "×" + std::to_string(m.rows()) + "×" +
           std::to_string(m.cols());
}

/// q and k (and v) [L,H,N,d_k]: a "q·k" component of their raw scores (first, unless the file
/// has scores of its own), and the vectors attached to every component of the same shape.
/// d_k scales the scores: the file's d_k member, else the vectors' width.
void attach_vectors(std::map<std::string, std::vector<std::byte>>& members, const std::string& name,
                    std::optional<float> dk, AttentionData& data) {
    Index lq = 0, hq = 0, lk = 0, hk = 0, lv = 0, hv = 0;
    std::vector<Matrix> q = read_vectors(members, name, "q", &lq, &hq);
    std::vector<Matrix> k = read_vectors(members, name, "k", &lk, &hk);
    std::vector<Matrix> v;
    if (members.count("v")) v = read_vectors(members, name, "v", &lv, &hv);
    if (lq != lk || hq != hk || q[0].cols() != k[0].cols())
        fail(name, "'q' is " + dims(lq, hq, q[0]) + " but 'k' is " + dims(lk, hk, k[0]) +
                       " (expected [L,H,N,d_k] with the same L, H and d_k)");
    if (!v.empty() && (lv != lq || hv != hq || v[0].rows() != k[0].rows()))
        fail(name, "'v' is " + dims(lv, hv, v[0]) + ", which does not match 'k' " +
                       dims(lk, hk, k[0]) + " in layers, heads or tokens");
    AttentionComponent scores;
    scores.name = "q·k";
    scores.layers = lq;
    scores.heads = hq;
    scores.are_scores = true;
    scores.d_k = dk.value_or(static_cast<float>(q[0].cols()));
    require_memory(static_cast<double>(q.size()) * static_cast<double>(q[0].rows()) *
                       static_cast<double>(k[0].rows()) * sizeof(float),
                   name + ": q·k scores of " + dims(lq, hq, q[0]) + " × " + dims(lk, hk, k[0]),
                   "open fewer tokens, or raise the memory budget");
    for (std::size_t i = 0; i < q.size(); ++i)
        scores.mats.push_back(q[i] * k[i].transpose());
    for (auto& c : data.components)
        if (c.layers == lq && c.heads == hq && query_rows(c) == q[0].rows() &&
            key_cols(c) == k[0].rows())
            c.q = q, c.k = k, c.v = v;
    scores.q = std::move(q);
    scores.k = std::move(k);
    scores.v = std::move(v);
    const bool hasScores = !data.components.empty() && data.components[0].are_scores;
    data.components.insert(hasScores ? data.components.end() : data.components.begin(),
                           std::move(scores));
}

/// archive, when given, maps `bytes`: its pages are returned as streamed members are read, and
/// a long attention member is read row by row from it (or from a temporary file).
AttentionData parse_npz(std::span<const std::byte> bytes, const std::string& name,
                        Progress* progress, const std::shared_ptr<const MappedFile>& archive) {
    ZipPtr z = open_zip(bytes, name);
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    std::map<std::string, std::vector<std::byte>> members;
    std::map<std::string, std::pair<zip_uint64_t, std::size_t>> streamed;  // index, size
    std::map<std::string, detail::MappedArray> long_members;
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* raw = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (!raw) fail(name, "member " + std::to_string(i) + " has no readable name");
        std::string member = raw;
        if (member.size() < 5 || member.substr(member.size() - 4) != ".npy") continue;
        const std::string key = member.substr(0, member.size() - 4);
        static const std::set<std::string> ours = {"attention",
                                                   "scores",
                                                   "tokens",
                                                   "query_tokens",
                                                   "key_tokens",
                                                   "d_k",
                                                   "q",
                                                   "k",
                                                   "v",
                                                   "sentence_b_start",
                                                   "encoder_attention",
                                                   "decoder_attention",
                                                   "cross_attention",
                                                   "encoder_tokens",
                                                   "decoder_tokens"};
        if (!ours.count(key)) continue;  // other members are not ours to judge
        if (members.count(key) || streamed.count(key) || long_members.count(key))
            fail(name, "member " + member + " appears twice");
        std::size_t size = 0;
        const bool tensor = key == "attention" || key == "scores";
        std::optional<detail::MappedArray> rows;
        if (tensor && archive) {
            // Inflating long members takes the first half of the progress, a quarter each.
            const double from = 0.25 * double(long_members.size());
            PartProgress part(progress, from, from + 0.25);
            rows = detail::long_member(z.get(), static_cast<zip_uint64_t>(i), archive, member, name,
                                       &part);
        }
        // Long tensors are read row by row; large ones streamed into their matrices below; the
        // rest is small.
        if (rows)
            long_members.emplace(key, std::move(*rows));
        else if ((key == "attention" || key == "scores") &&
                 stored_member(z.get(), static_cast<zip_uint64_t>(i), bytes.size(), &size))
            streamed[key] = {static_cast<zip_uint64_t>(i), size};
        else
            members[key] = read_member(z.get(), static_cast<zip_uint64_t>(i), name + ": " + member);
    }
    const auto has = [&](const char* key) {
        return members.count(key) || streamed.count(key) || long_members.count(key);
    };
    const bool vectors = has("q") && has("k");
    if (has("q") != has("k")) fail(name, "holds only one of 'q' and 'k' (both are needed)");
    const bool seq2seq = detail::has_encoder_decoder(members);
    if (seq2seq && (has("attention") || has("scores") || has("q") || has("k")))
        fail(name,
             "holds both encoder-decoder members (encoder_attention, decoder_attention, "
             "cross_attention) and self-attention ones (attention, scores, q, k); save them "
             "to separate files");
    if (!has("attention") && !has("scores") && !vectors && !seq2seq)
        fail(name,
             "holds neither 'attention' nor 'scores' nor 'q' and 'k' (expected attention.npy, "
             "scores.npy or q.npy + k.npy in the archive)");

    float d_k = kDefaultDataDk;
    std::optional<float> dk_given;
    if (members.count("d_k")) {
        NpyView v(members["d_k"], name + ": d_k.npy");
        const auto vals = v.to_floats();
        if (vals.size() != 1 || !(vals[0] > 0.f))
            fail(name + ": d_k.npy", "expected one positive number");
        d_k = vals[0];
        dk_given = d_k;
    }

    AttentionData data;
    data.source = name;
    const bool both = has("attention") && has("scores");
    const double start = long_members.empty() ? 0.0 : 0.5;  // after inflating
    for (const char* key : {"scores", "attention"}) {
        // This component's part of what is left: all of it, or half each when there are two.
        const double from = start + (1 - start) * (both && !data.components.empty() ? 0.5 : 0.0);
        const double to = start + (1 - start) * (both && data.components.empty() ? 0.5 : 1.0);
        const std::string where = name + ": " + key + ".npy";
        const bool scores = std::string(key) == "scores";
        AttentionComponent c;
        if (auto it = long_members.find(key); it != long_members.end()) {
            PartProgress part(progress, from, to);
            c = detail::rows_component(std::move(it->second), scores, &part);
            c.name = key;
        } else if (auto it = streamed.find(key); it != streamed.end()) {
            StreamedMember member(z.get(), it->second.first, it->second.second, where,
                                  archive.get());
            NpyView v(member.bytes(), where);
            c = component_from_npy(v, key, scores, nullptr, member);
            member.finish();
        } else if (members.count(key)) {
            NpyView v(members[key], where);
            c = component_from_npy(v, key, scores, nullptr);
            members.erase(key);  // its matrices hold the numbers now
        } else {
            continue;
        }
        if (!scores) check_weights(c, where);
        c.d_k = d_k;
        data.components.push_back(std::move(c));
        report(progress, to);
    }
    if (both) {
        const auto& a = data.components[0];
        const auto& b = data.components[1];
        if (a.layers != b.layers || a.heads != b.heads || query_rows(a) != query_rows(b) ||
            key_cols(a) != key_cols(b))
            fail(name, "'scores' and 'attention' have different shapes");
    }
    if (seq2seq) {
        detail::add_encoder_decoder(members, name, d_k, data);
        return data;
    }
    if (vectors) attach_vectors(members, name, dk_given, data);
    const Index nq = query_rows(data.components[0]), nk = key_cols(data.components[0]);
    std::vector<std::string> qt, kt;
    if (members.count("query_tokens") || members.count("key_tokens")) {
        if (!members.count("query_tokens") || !members.count("key_tokens"))
            fail(name, "holds only one of 'query_tokens' and 'key_tokens'");
        qt = detail::read_npz_tokens(members, "query_tokens", name);
        kt = detail::read_npz_tokens(members, "key_tokens", name);
        check_npz_tokens(qt, nq, "query_tokens", name);
        check_npz_tokens(kt, nk, "key_tokens", name);
    } else if (members.count("tokens")) {
        qt = kt = detail::read_npz_tokens(members, "tokens", name);
        if (nq != nk)
            fail(name, "'tokens' labels both sides but the matrices are " + std::to_string(nq) +
                           "×" + std::to_string(nk) + " (use query_tokens and key_tokens)");
        check_npz_tokens(qt, nq, "tokens", name);
    }
    if (!qt.empty())
        for (auto& c : data.components)
            c.q_tokens = qt, c.k_tokens = kt;
    if (members.count("sentence_b_start")) detail::split_sentences(members, name, data);
    return data;
}

}  // namespace

AttentionData parse_npz_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress) {
    return parse_npz(bytes, name, progress, {});
}

AttentionData load_npz_attention(const std::string& path, Progress* progress) {
    auto file = std::make_shared<const MappedFile>(path);
    AttentionData data = parse_npz(file->bytes(), detail::base_name(path), progress, file);
    data.source = path;
    return data;
}

NpzMembers parse_npz(std::span<const std::byte> bytes, const std::string& name) {
    ZipPtr z = open_zip(bytes, name);
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    NpzMembers out;
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* raw = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (!raw) fail(name, "member " + std::to_string(i) + " has no readable name");
        const std::string member = raw;
        if (!member.ends_with(".npy")) continue;
        out.emplace_back(member.substr(0, member.size() - 4),
                         read_member(z.get(), static_cast<zip_uint64_t>(i), name + ": " + member));
    }
    return out;
}

NpzMembers read_npz(const std::string& path) {
    MappedFile file(path);
    return parse_npz(file.bytes(), detail::base_name(path));
}

}  // namespace attn::io
