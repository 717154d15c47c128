// AttnScope core — the compute output written one layer at a time. GPL-3.0-or-later.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "../../files/io_util.hpp"
#include "attn/files/output_file.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/util/error.hpp"
#include "result_layout.hpp"

namespace attn::io {

/// Either writer; the layer count is announced so the [L,H,…] arrays can be laid out up front.
struct ResultStream::Sink {
    virtual ~Sink() = default;
    virtual void add(const SceneResult& layer) = 0;
    virtual void finish() = 0;
    /// An extra array, written by finish after the layers.
    struct Extra {
        std::string name;
        std::vector<std::uint64_t> shape;
        std::vector<float> values;
        std::vector<std::int32_t> ints;  ///< an int32 array instead (1-D), when not empty
    };
    std::vector<Extra> extras;
    /// True when stage s (index into detail::stages()) is written for scenes like `first`.
    bool wanted(const SceneResult& first, std::size_t s) const {
        return detail::stage_written(first, detail::stages()[s].first, &stages);
    }
    std::size_t layers = 0, added = 0, heads = 0;
    std::vector<std::string> stages;  ///< empty: every stage
};

namespace {

constexpr Index kStreamTileRows = 256;
// Indices into detail::stages() (SceneResult::stage_rows numbers them alike).
constexpr std::size_t kWeightsStage = 4, kOutputStage = 5;

/// float32 little-endian bytes of a matrix (row-major, as the in-memory writer lays it out).
std::span<const std::byte> le_bytes(const Matrix& m, std::vector<std::byte>& scratch) {
    const auto n = static_cast<std::size_t>(m.size());
    if constexpr (std::endian::native == std::endian::little) {
        return std::as_bytes(std::span<const float>(m.data(), n));
    } else {
        scratch.resize(n * 4);
        for (std::size_t i = 0; i < n; ++i) {
            const auto bits = std::bit_cast<std::uint32_t>(m.data()[i]);
            for (int b = 0; b < 4; ++b)
                scratch[4 * i + b] = static_cast<std::byte>((bits >> (8 * b)) & 0xFF);
        }
        return scratch;
    }
}

/// The stages go straight to their place in the archive, each [L,H,Nq,Nk] array filled one
/// layer at a time; the small arrays are gathered and written after the last layer.
class NpzSink final : public ResultStream::Sink {
  public:
    NpzSink(const std::string& path, std::uint64_t zip64_limit) : zip_(path, zip64_limit) {}

    void add(const SceneResult& r) override {
        if (added == 0) lay_out(r);
        const auto& all = detail::stages();
        for (const Slot& slot : slots_)
            for (std::size_t h = 0; h < r.heads.size(); ++h) {
                if (r.storage == Storage::Streamed) {
                    // Tile by tile: one tile of one stage in memory at a time.
                    Matrix tile;
                    const Index nq = r.query_count();
                    for (Index b = 0; b < nq; b += kStreamTileRows) {
                        const Index len = std::min(kStreamTileRows, nq - b);
                        r.stage_rows(static_cast<int>(slot.stage), static_cast<Index>(h), b, len,
                                     tile);
                        if (tile.cols() != slot.cols)
                            throw ShapeError("write_result: heads have different matrix shapes");
                        zip_.write(slot.member, le_bytes(tile, scratch_));
                    }
                    continue;
                }
                const Matrix& m = all[slot.stage].second(r.heads[h], derived_);
                if (m.rows() != slot.rows || m.cols() != slot.cols)
                    throw ShapeError("write_result: heads have different matrix shapes");
                zip_.write(slot.member, le_bytes(m, scratch_));
            }
        layer_ids_.push_back(static_cast<float>(r.layer));
        for (const auto& h : r.heads) {
            nq_ = h.empty_rows.size();
            for (auto e : h.empty_rows)
                empty_.push_back(static_cast<float>(e));
            scale_.push_back(h.scale_factor);
        }
        if (layers == 1 && r.has_vectors) {
            const std::pair<const char*, const Matrix*> vectors[] = {
                {"X", &r.X}, {"X_kv", &r.Xkv}, {"Q", &r.Q},
                {"K", &r.K}, {"V", &r.V},      {"layer_output", &r.output}};
            for (const auto& [name, m] : vectors) {
                if (m->size() == 0) continue;  // a streamed scene has no layer output
                const std::uint64_t shape[] = {static_cast<std::uint64_t>(m->rows()),
                                               static_cast<std::uint64_t>(m->cols())};
                const auto n = static_cast<std::size_t>(m->size());
                vectors_.emplace_back(name, npy_bytes(std::span(m->data(), n), shape));
            }
        }
    }

    void finish() override {
        const std::uint64_t H = heads_, L = layers;
        std::vector<std::uint64_t> es, ss;
        if (L > 1) es.push_back(L), ss.push_back(L);
        es.push_back(H), es.push_back(nq_), ss.push_back(H);
        if (empty_.size() == L * H * nq_) put("empty_rows", npy_bytes(empty_, es));
        put("scale_factor", npy_bytes(scale_, ss));
        put("q_tokens", npy_string_bytes(q_tokens_));
        put("k_tokens", npy_string_bytes(k_tokens_));
        const std::uint64_t one[] = {1}, nl[] = {L};
        put("d_k", npy_bytes(std::span<const float>(&dk_, 1), one));
        put("layer", npy_bytes(layer_ids_, nl));
        for (const auto& [name, bytes] : vectors_)
            put(name, bytes);
        for (const Extra& e : extras)
            put(e.name,
                e.ints.empty() ? npy_bytes(e.values, e.shape) : npy_i4_bytes(e.ints, e.shape));
        zip_.finish();
    }

  private:
    struct Slot {
        std::size_t stage = 0, member = 0;
        Index rows = 0, cols = 0;
    };

    /// Every layer is shaped like the first: its stages fix the members' sizes.
    void lay_out(const SceneResult& first) {
        heads_ = first.heads.size();
        q_tokens_ = first.q_tokens;
        k_tokens_ = first.k_tokens;
        dk_ = static_cast<float>(first.d_k);
        const auto& all = detail::stages();
        for (std::size_t s = 0; s < all.size() && heads_ > 0; ++s) {
            if (!wanted(first, s)) continue;
            Index rows = 0, cols = 0;
            // A long loaded file has no output stage, and post-softmax data no score stages.
            const bool output = s == kOutputStage, scores = s < kWeightsStage;
            if (first.source && (output || (!first.has_scores && scores))) continue;
            if (first.storage ==
                Storage::Streamed) {  // every stage can be recomputed: shapes from the scene
                rows = first.query_count();
                cols = output ? first.d_k : first.key_count();
            } else {
                const Matrix& m = all[s].second(first.heads[0], derived_);
                rows = m.rows();
                cols = m.cols();
            }
            if (rows * cols == 0) continue;  // left out, as when empty in every head
            std::vector<std::uint64_t> shape;
            if (layers > 1) shape.push_back(layers);
            shape.push_back(heads_);
            shape.push_back(static_cast<std::uint64_t>(rows));
            shape.push_back(static_cast<std::uint64_t>(cols));
            const std::vector<std::byte> header = npy_f4_header(shape);
            const std::uint64_t data =
                layers * heads_ * static_cast<std::uint64_t>(rows * cols) * 4;
            const std::size_t member =
                zip_.reserve(std::string(all[s].first) + ".npy", header.size() + data);
            zip_.write(member, header);
            slots_.push_back({s, member, rows, cols});
        }
    }

    void put(const std::string& name, const std::vector<std::byte>& bytes) {
        zip_.add(name + ".npy", bytes);
    }

    ZipWriter zip_;
    std::size_t heads_ = 0;
    std::vector<Slot> slots_;
    std::vector<std::byte> scratch_;
    Matrix derived_;  ///< a derived stage (scaled, softcapped, masked) of the head being written
    std::vector<float> empty_, scale_, layer_ids_;
    std::uint64_t nq_ = 0;
    std::vector<std::string> q_tokens_, k_tokens_;
    float dk_ = 0;
    NpzMembers vectors_;
};

/// The document's head, then each layer's object as it comes, then the closing brackets: the
/// same bytes as dumping the whole document at once.
class JsonSink final : public ResultStream::Sink {
  public:
    explicit JsonSink(const std::string& path) : path_(path), file_(path) {}

    void add(const SceneResult& r) override {
        if (r.storage == Storage::Streamed)
            throw ArgumentError(path_ +
                                ": a long sequence is written as .npz (tile by tile); "
                                "JSON would hold every number in memory");
        if (added == 0) {
            std::string head = detail::compute_json_head(r).dump();
            head.pop_back();  // the closing brace: "layers" follows
            file_.append(head + ",\"layers\":[");
        } else {
            file_.append(",");
        }
        file_.append(detail::compute_json_layer(r, &stages).dump());
    }

    void finish() override {
        file_.append("]");
        for (const Extra& e : extras)
            file_.append(
                ",\"" + e.name + "\":" +
                (e.ints.empty() ? nested(e.values, e.shape, 0, 0) : nested(e.ints, e.shape, 0, 0))
                    .dump());
        file_.append("}\n");
        file_.commit();
    }

  private:
    /// The values of shape[dim…] starting at offset as nested lists (row-major).
    template <class T>
    static nlohmann::json nested(const std::vector<T>& v, const std::vector<std::uint64_t>& shape,
                                 std::size_t dim, std::size_t offset) {
        nlohmann::json a = nlohmann::json::array();
        std::size_t stride = 1;
        for (std::size_t d = dim + 1; d < shape.size(); ++d)
            stride *= shape[d];
        for (std::uint64_t i = 0; i < shape[dim]; ++i) {
            if (dim + 1 == shape.size())
                a.push_back(v[offset + i]);
            else
                a.push_back(nested(v, shape, dim + 1, offset + i * stride));
        }
        return a;
    }
    std::string path_;
    OutputFile file_;
};

}  // namespace

ResultStream::ResultStream(const std::string& path, std::size_t layers, std::uint64_t zip64_limit) {
    if (layers == 0) throw ArgumentError("write_result: no results to write");
    const std::string ext = detail::extension(path);
    if (ext == ".npz")
        sink_ = std::make_unique<NpzSink>(path, zip64_limit);
    else if (ext == ".json")
        sink_ = std::make_unique<JsonSink>(path);
    else
        throw ArgumentError(path + ": compute output must end in .npz or .json");
    sink_->layers = layers;
}

ResultStream::~ResultStream() = default;

void ResultStream::select_stages(std::vector<std::string> names) {
    sink_->stages = std::move(names);
}

void ResultStream::add(const SceneResult& layer) {
    if (sink_->added == sink_->layers)
        throw ArgumentError("write_result: more layers than the " + std::to_string(sink_->layers) +
                            " announced");
    if (sink_->added == 0) sink_->heads = layer.heads.size();
    if (layer.heads.size() != sink_->heads)
        throw ShapeError("write_result: layers have different head counts");
    sink_->add(layer);
    ++sink_->added;
}

void ResultStream::add_array(const std::string& name, const std::vector<std::uint64_t>& shape,
                             std::vector<float> values) {
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    if (shape.empty() || n != values.size())
        throw ShapeError("write_result: array " + name + " has " + std::to_string(values.size()) +
                         " values for its shape");
    sink_->extras.push_back({name, shape, std::move(values), {}});
}

void ResultStream::add_int_array(const std::string& name, std::vector<std::int32_t> values,
                                 std::vector<std::uint64_t> shape) {
    if (values.empty()) throw ShapeError("write_result: array " + name + " is empty");
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    if (shape.empty()) shape = {n = values.size()};
    if (n != values.size())
        throw ShapeError("write_result: array " + name + " has " + std::to_string(values.size()) +
                         " values for its shape");
    sink_->extras.push_back({name, std::move(shape), {}, std::move(values)});
}

void ResultStream::finish() {
    if (sink_->added != sink_->layers)
        throw ArgumentError("write_result: " + std::to_string(sink_->added) + " of " +
                            std::to_string(sink_->layers) + " layers were written");
    sink_->finish();
}

}  // namespace attn::io
