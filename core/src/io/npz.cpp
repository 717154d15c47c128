// AttnScope core — .npz archives through libzip: the attention reader (npz_write.cpp writes).
// GPL-3.0-or-later.
#include <sys/mman.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "attn/io/mapped_file.hpp"
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

/// A stored member read through libzip into anonymous memory as its matrices are copied out:
/// each matrix's pages are returned once copied, so a 600 MB member never costs 600 MB of its
/// own on top of the matrices. Only stored members come here: their size is the compressed size,
/// bounded by the archive itself.
class StreamedMember : public ByteSource {
  public:
    StreamedMember(zip_t* z, zip_uint64_t index, std::size_t size, std::string where,
                   const MappedFile* archive)
        : size_(size), where_(std::move(where)), archive_(archive) {
        file_ = zip_fopen_index(z, index, 0);
        if (!file_) fail(where_, std::string("cannot open the member: ") + zip_strerror(z));
        void* p = size_ ? ::mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                        : nullptr;
        if (p == MAP_FAILED) {
            zip_fclose(file_);
            fail(where_, "not enough memory to read " + detail::human_bytes(size_));
        }
        data_ = static_cast<std::byte*>(p);
        // The .npy header: its length is in the preamble (bytes 8–11).
        need(std::min<std::size_t>(size_, 12));
        std::size_t header_end = size_;
        if (size_ >= 12) {
            const auto byte = [&](std::size_t i) { return std::to_integer<std::size_t>(data_[i]); };
            header_end = byte(6) == 1
                             ? 10 + (byte(8) | byte(9) << 8)
                             : 12 + (byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24);
        }
        need(std::min(size_, std::max<std::size_t>(header_end, 1 << 16)));
    }
    ~StreamedMember() override {
        if (file_) zip_fclose(file_);
        if (data_) ::munmap(data_, size_);
    }
    StreamedMember(const StreamedMember&) = delete;
    StreamedMember& operator=(const StreamedMember&) = delete;

    std::span<const std::byte> bytes() const { return {data_, size_}; }

    void need(std::size_t end) override {
        end = std::min(end, size_);
        while (filled_ < end) {
            const std::size_t want = std::min<std::size_t>(size_ - filled_, 16 << 20);
            const zip_int64_t got = zip_fread(file_, data_ + filled_, want);
            if (got < 0) fail(where_, std::string("corrupt data: ") + zip_file_strerror(file_));
            if (got == 0)
                fail(where_, "holds " + std::to_string(filled_) + " bytes but its entry claims " +
                                 std::to_string(size_));
            filled_ += static_cast<std::size_t>(got);
            // The archive's pages were only read to be copied here: drop them from this process
            // (the page cache keeps them; libzip maps back in whatever it reads again).
            if (archive_) archive_->release(0, std::numeric_limits<std::size_t>::max());
        }
    }

    void release(std::size_t offset, std::size_t length) override {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t begin = (offset + page - 1) / page * page;
        const std::size_t end = std::min(size_, offset + length) / page * page;
        if (end > begin) ::madvise(data_ + begin, end - begin, MADV_DONTNEED);
    }

    /// Reads to the end of the member, where libzip checks its CRC.
    void finish() {
        need(size_);
        std::byte extra;
        const zip_int64_t got = zip_fread(file_, &extra, 1);
        if (got < 0) fail(where_, std::string("corrupt data: ") + zip_file_strerror(file_));
        if (got > 0)
            fail(where_, "holds more bytes than its entry claims (" + std::to_string(size_) + ")");
    }

  private:
    zip_file_t* file_ = nullptr;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0, filled_ = 0;
    std::string where_;
    const MappedFile* archive_ = nullptr;
};

/// Whether a member is stored (not deflated) with a known size that fits in the archive's
/// `archive` bytes: then it can be streamed.
bool stored_member(zip_t* z, zip_uint64_t index, std::size_t archive, std::size_t* size) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, index, 0, &st) != 0) return false;
    const bool known = (st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_COMP_SIZE) &&
                       (st.valid & ZIP_STAT_COMP_METHOD);
    const bool plain =
        !(st.valid & ZIP_STAT_ENCRYPTION_METHOD) || st.encryption_method == ZIP_EM_NONE;
    if (!known || !plain || st.comp_method != ZIP_CM_STORE || st.size != st.comp_size ||
        st.comp_size > archive)
        return false;
    *size = static_cast<std::size_t>(st.size);
    return true;
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

namespace {

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
    for (std::size_t i = 0; i < q.size(); ++i)
        scores.mats.push_back(q[i] * k[i].transpose());
    for (auto& c : data.components)
        if (c.layers == lq && c.heads == hq && c.mats[0].rows() == q[0].rows() &&
            c.mats[0].cols() == k[0].rows())
            c.q = q, c.k = k, c.v = v;
    scores.q = std::move(q);
    scores.k = std::move(k);
    scores.v = std::move(v);
    const bool hasScores = !data.components.empty() && data.components[0].are_scores;
    data.components.insert(hasScores ? data.components.end() : data.components.begin(),
                           std::move(scores));
}

/// archive, when given, maps `bytes`: its pages are returned as streamed members are read.
AttentionData parse_npz(std::span<const std::byte> bytes, const std::string& name,
                        Progress* progress, const MappedFile* archive) {
    ZipPtr z = open_zip(bytes, name);
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    std::map<std::string, std::vector<std::byte>> members;
    std::map<std::string, std::pair<zip_uint64_t, std::size_t>> streamed;  // index, size
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* raw = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (!raw) fail(name, "member " + std::to_string(i) + " has no readable name");
        std::string member = raw;
        if (member.size() < 5 || member.substr(member.size() - 4) != ".npy") continue;
        const std::string key = member.substr(0, member.size() - 4);
        if (key != "attention" && key != "scores" && key != "tokens" && key != "query_tokens" &&
            key != "key_tokens" && key != "d_k" && key != "q" && key != "k" && key != "v")
            continue;  // other members are not ours to judge
        if (members.count(key) || streamed.count(key))
            fail(name, "member " + member + " appears twice");
        std::size_t size = 0;
        // Large attention tensors are streamed into their matrices below; the rest is small.
        if ((key == "attention" || key == "scores") &&
            stored_member(z.get(), static_cast<zip_uint64_t>(i), bytes.size(), &size))
            streamed[key] = {static_cast<zip_uint64_t>(i), size};
        else
            members[key] = read_member(z.get(), static_cast<zip_uint64_t>(i), name + ": " + member);
    }
    const auto has = [&](const char* key) { return members.count(key) || streamed.count(key); };
    const bool vectors = has("q") && has("k");
    if (has("q") != has("k")) fail(name, "holds only one of 'q' and 'k' (both are needed)");
    if (!has("attention") && !has("scores") && !vectors)
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
    for (const char* key : {"scores", "attention"}) {
        const std::string where = name + ": " + key + ".npy";
        const bool scores = std::string(key) == "scores";
        AttentionComponent c;
        if (auto it = streamed.find(key); it != streamed.end()) {
            StreamedMember member(z.get(), it->second.first, it->second.second, where, archive);
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
    if (vectors) attach_vectors(members, name, dk_given, data);
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

}  // namespace

AttentionData parse_npz_attention(std::span<const std::byte> bytes, const std::string& name,
                                  Progress* progress) {
    return parse_npz(bytes, name, progress, nullptr);
}

AttentionData load_npz_attention(const std::string& path, Progress* progress) {
    MappedFile file(path);
    AttentionData data = parse_npz(file.bytes(), detail::base_name(path), progress, &file);
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
