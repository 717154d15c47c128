// AttnScope core — .npz archives through libzip: attention reader and stored writer.
// GPL-3.0-or-later.
#include <zip.h>

#include <cmath>
#include <map>
#include <memory>

#include "attn/io/numpy_attention.hpp"
#include "io_util.hpp"

namespace attn::io {

namespace {

using detail::fail;

/// Deflate cannot expand data by more than about 1032:1; a member claiming more lies.
constexpr std::uint64_t kMaxDeflateRatio = 1100;

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;

ZipPtr open_zip(std::span<const std::byte> bytes, const std::string& name) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) fail(name, std::string("cannot read the archive: ") + zip_error_strerror(&err));
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!z) {
        zip_source_free(src);
        const std::string why = zip_error_strerror(&err);
        zip_error_fini(&err);
        fail(name, "not a valid .npz (zip) archive: " + why);
    }
    zip_error_fini(&err);
    return ZipPtr(z);
}

/// Reads one member fully, never trusting its claimed size further than deflate allows.
std::vector<std::byte> read_member(zip_t* z, zip_uint64_t index, const std::string& where) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, index, 0, &st) != 0) fail(where, "cannot read the member's entry");
    if ((st.valid & ZIP_STAT_SIZE) == 0 || (st.valid & ZIP_STAT_COMP_SIZE) == 0)
        fail(where, "the member's size is unknown");
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        fail(where, "encrypted members are not supported");
    if ((st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method != ZIP_CM_STORE &&
        st.comp_method != ZIP_CM_DEFLATE)
        fail(where, "unsupported compression method " + std::to_string(st.comp_method) +
                        " (expected stored or deflated)");
    if (st.size > st.comp_size * kMaxDeflateRatio + 4096)
        fail(where, "claims " + detail::human_bytes(st.size) + " uncompressed from " +
                        detail::human_bytes(st.comp_size) + " of compressed data, impossible");
    zip_file_t* f = zip_fopen_index(z, index, 0);
    if (!f) fail(where, std::string("cannot open the member: ") + zip_strerror(z));
    std::vector<std::byte> out;
    constexpr std::size_t kChunk = 1 << 20;
    for (;;) {
        const std::size_t old = out.size();
        if (old > st.size) break;
        out.resize(old + kChunk);
        const zip_int64_t got = zip_fread(f, out.data() + old, kChunk);
        if (got < 0) {
            const std::string why = zip_file_strerror(f);
            zip_fclose(f);
            fail(where, "corrupt data: " + why);
        }
        out.resize(old + static_cast<std::size_t>(got));
        if (got == 0) break;
    }
    zip_fclose(f);
    if (out.size() != st.size)
        fail(where, "holds " + std::to_string(out.size()) + " bytes but its entry claims " +
                        std::to_string(st.size));
    return out;
}

std::vector<std::string> read_tokens(const std::map<std::string, std::vector<std::byte>>& m,
                                     const std::string& key, const std::string& name) {
    const std::string where = name + ": " + key + ".npy";
    NpyView v(m.at(key), where);
    if (v.header().shape.size() != 1)
        fail(where,
             "expected a 1-D array of tokens, got " + detail::shape_string(v.header().shape));
    auto tokens = v.to_strings();
    if (tokens.empty()) fail(where, "holds zero tokens");
    return tokens;
}

void check_tokens(const std::vector<std::string>& tokens, Index expected, const std::string& what,
                  const std::string& name) {
    if (static_cast<Index>(tokens.size()) != expected)
        fail(name, what + " holds " + std::to_string(tokens.size()) +
                       " tokens but the matrices have " + std::to_string(expected) +
                       (what == "key_tokens" ? " columns" : " rows"));
}

}  // namespace

AttentionData parse_npz_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress) {
    ZipPtr z = open_zip(bytes, name);
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    std::map<std::string, std::vector<std::byte>> members;
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* raw = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (!raw) fail(name, "member " + std::to_string(i) + " has no readable name");
        std::string member = raw;
        if (member.size() < 5 || member.substr(member.size() - 4) != ".npy") continue;
        const std::string key = member.substr(0, member.size() - 4);
        if (key != "attention" && key != "scores" && key != "tokens" && key != "query_tokens" &&
            key != "key_tokens" && key != "d_k")
            continue;  // other members are not ours to judge
        if (members.count(key)) fail(name, "member " + member + " appears twice");
        members[key] = read_member(z.get(), static_cast<zip_uint64_t>(i), name + ": " + member);
    }
    if (!members.count("attention") && !members.count("scores"))
        fail(name,
             "holds neither 'attention' nor 'scores' (expected attention.npy and/or "
             "scores.npy in the archive)");

    float d_k = kDefaultDataDk;
    if (members.count("d_k")) {
        NpyView v(members["d_k"], name + ": d_k.npy");
        const auto vals = v.to_floats();
        if (vals.size() != 1 || !(vals[0] > 0.f))
            fail(name + ": d_k.npy", "expected one positive number");
        d_k = vals[0];
    }

    AttentionData data;
    data.source = name;
    const bool both = members.count("attention") && members.count("scores");
    for (const char* key : {"scores", "attention"}) {
        if (!members.count(key)) continue;
        NpyView v(members[key], name + ": " + key + ".npy");
        AttentionComponent c = component_from_npy(v, key, std::string(key) == "scores", nullptr);
        c.d_k = d_k;
        data.components.push_back(std::move(c));
        report(progress, both && data.components.size() == 1 ? 0.5 : 1.0);
    }
    if (both) {
        const auto& a = data.components[0];
        const auto& b = data.components[1];
        if (a.layers != b.layers || a.heads != b.heads || a.mats[0].rows() != b.mats[0].rows() ||
            a.mats[0].cols() != b.mats[0].cols())
            fail(name, "'scores' and 'attention' have different shapes");
    }
    const Index nq = data.components[0].mats[0].rows(), nk = data.components[0].mats[0].cols();
    std::vector<std::string> qt, kt;
    if (members.count("query_tokens") || members.count("key_tokens")) {
        if (!members.count("query_tokens") || !members.count("key_tokens"))
            fail(name, "holds only one of 'query_tokens' and 'key_tokens'");
        qt = read_tokens(members, "query_tokens", name);
        kt = read_tokens(members, "key_tokens", name);
        check_tokens(qt, nq, "query_tokens", name);
        check_tokens(kt, nk, "key_tokens", name);
    } else if (members.count("tokens")) {
        qt = kt = read_tokens(members, "tokens", name);
        if (nq != nk)
            fail(name, "'tokens' labels both sides but the matrices are " + std::to_string(nq) +
                           "×" + std::to_string(nk) + " (use query_tokens and key_tokens)");
        check_tokens(qt, nq, "tokens", name);
    }
    if (!qt.empty())
        for (auto& c : data.components)
            c.q_tokens = qt, c.k_tokens = kt;
    return data;
}

AttentionData load_npz_attention(const std::string& path, Progress* progress) {
    MappedFile file(path);
    AttentionData data = parse_npz_attention(file.bytes(), detail::base_name(path), progress);
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

std::vector<std::byte> npz_bytes(const NpzMembers& members) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!src) throw Error("npz: cannot create an in-memory archive");
    zip_source_keep(src);
    zip_t* z = zip_open_from_source(src, ZIP_TRUNCATE, &err);
    if (!z) {
        zip_source_free(src);
        throw Error(std::string("npz: cannot create an archive: ") + zip_error_strerror(&err));
    }
    for (const auto& [key, payload] : members) {
        zip_source_t* m = zip_source_buffer(z, payload.data(), payload.size(), 0);
        const std::string member = key + ".npy";
        const zip_int64_t idx = m ? zip_file_add(z, member.c_str(), m, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (m) zip_source_free(m);
            zip_discard(z);
            zip_source_free(src);
            throw Error("npz: cannot add " + member);
        }
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) {
        zip_discard(z);
        zip_source_free(src);
        throw Error("npz: cannot finish the archive");
    }
    std::vector<std::byte> out;
    if (zip_source_open(src) == 0) {
        zip_source_seek(src, 0, SEEK_END);
        const zip_int64_t size = zip_source_tell(src);
        zip_source_seek(src, 0, SEEK_SET);
        out.resize(static_cast<std::size_t>(size > 0 ? size : 0));
        if (size > 0 && zip_source_read(src, out.data(), static_cast<zip_uint64_t>(size)) != size)
            out.clear();
        zip_source_close(src);
    }
    zip_source_free(src);
    if (out.empty()) throw Error("npz: cannot read back the archive");
    return out;
}

void write_npz(const std::string& path, const NpzMembers& members) {
    detail::write_whole_file(path, npz_bytes(members));
}

}  // namespace attn::io
