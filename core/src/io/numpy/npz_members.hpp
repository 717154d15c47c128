// AttnScope core — .npz members through libzip: opening the archive, reading a member whole or
// streamed into memory as its matrices are copied out (private to the .npz reader).
// GPL-3.0-or-later.
#pragma once

#include <sys/mman.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../../files/io_util.hpp"
#include "attn/files/mapped_file.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "npy_rows.hpp"

namespace attn::io::detail {

/// The small members of an archive by name (without ".npy"), read whole.
using NpzMemberMap = std::map<std::string, std::vector<std::byte>>;

/// Member `key` as a 1-D unicode array of tokens; throws FormatError naming name and key.
std::vector<std::string> read_npz_tokens(const NpzMemberMap& members, const std::string& key,
                                         const std::string& name);
/// Throws unless `tokens` labels `expected` rows (or columns, for key_tokens).
void check_npz_tokens(const std::vector<std::string>& tokens, Index expected,
                      const std::string& what, const std::string& name);
/// Whether the archive holds BertViz's encoder–decoder members.
bool has_encoder_decoder(const NpzMemberMap& members);
/// `encoder_attention` [L,H,Ne,Ne], `decoder_attention` [L,H,Nd,Nd] and `cross_attention`
/// [L,H,Nd,Ne] (any of them) as the weights components "Encoder", "Decoder" and "Cross",
/// labelled by `encoder_tokens` / `decoder_tokens`; sizes that disagree are refused.
void add_encoder_decoder(NpzMemberMap& members, const std::string& name, float d_k,
                         AttentionData& data);
/// `sentence_b_start` (one integer b): the `attention` component becomes BertViz's "all",
/// followed by its blocks "aa", "bb", "ab", "ba" (sentence A = tokens 0…b−1).
void split_sentences(NpzMemberMap& members, const std::string& name, AttentionData& data);

/// Deflate cannot expand data by more than about 1032:1; a member claiming more lies.
constexpr std::uint64_t kMaxDeflateRatio = 1100;

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;

/// Opens an archive held in memory; throws FormatError naming it.
ZipPtr open_zip(std::span<const std::byte> bytes, const std::string& name);

/// The member's entry, checked: known sizes, not encrypted, stored or deflated, and a size its
/// compressed data can hold.
zip_stat_t checked_stat(zip_t* z, zip_uint64_t index, const std::string& where);

/// Reads one member fully, never trusting its claimed size further than deflate allows.
std::vector<std::byte> read_member(zip_t* z, zip_uint64_t index, const std::string& where);

/// Whether a member is stored (not deflated) with a known size that fits in the archive's
/// `archive` bytes: then it can be streamed.
bool stored_member(zip_t* z, zip_uint64_t index, std::size_t archive, std::size_t* size);

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

/// A long `scores` or `attention` member (is_long_tensor) as an array whose rows are read in
/// place: a stored one at its data offset in the archive's map (archive maps the archive), a
/// deflated one inflated once, streaming, into a temporary file. nullopt for a member converted
/// to matrices as before.
std::optional<MappedArray> long_member(zip_t* z, zip_uint64_t index,
                                       const std::shared_ptr<const MappedFile>& archive,
                                       const std::string& member, const std::string& name,
                                       Progress* progress);

}  // namespace attn::io::detail
