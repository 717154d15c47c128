// Test-only reference writers (reference_writers.hpp).
#include "reference_writers.hpp"

#include <zip.h>

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include "attn/attention/mask.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/output/result_writer.hpp"

namespace reference {

using attn::HeadResult;
using attn::Index;
using attn::Matrix;
using attn::SceneResult;
using attn::io::NpzMembers;

namespace {

/// One per-head stage: stored, or derived here from raw as the stored stages were computed
/// (not through HeadResult's own accessors).
using StageOf = Matrix (*)(const HeadResult&);

Matrix masked_of(const HeadResult& h) {
    if (h.raw.size() == 0) return {};
    const attn::BoolMatrix allowed = attn::build_mask(h.mask, h.raw.rows(), h.raw.cols());
    const Matrix scaled = h.raw * h.multiplier;
    return allowed.select(scaled, -std::numeric_limits<float>::infinity());
}

/// The per-head stages in the layout's order (written here, not taken from core's writer).
constexpr std::pair<const char*, StageOf> kStages[] = {
    {"raw", [](const HeadResult& h) { return h.raw; }},
    {"scaled", [](const HeadResult& h) { return Matrix(h.raw * h.multiplier); }},
    {"masked", masked_of},
    {"weights", [](const HeadResult& h) { return h.weights; }},
    {"output", [](const HeadResult& h) { return h.output; }}};

/// Stacks one stage over layers and heads; empty when the stage is empty everywhere.
std::vector<std::byte> stack(const std::vector<SceneResult>& layers, StageOf stage) {
    bool any = false;
    Index rows = -1, cols = -1;
    for (const auto& r : layers)
        for (const auto& h : r.heads) {
            const Matrix m = stage(h);
            if (m.size() > 0) any = true;
            if (rows < 0) rows = m.rows(), cols = m.cols();
            if (m.rows() != rows || m.cols() != cols)
                throw std::invalid_argument("reference: heads have different matrix shapes");
        }
    if (!any) return {};
    std::vector<float> values;
    for (const auto& r : layers)
        for (const auto& h : r.heads) {
            const Matrix m = stage(h);
            values.insert(values.end(), m.data(), m.data() + m.size());
        }
    std::vector<std::uint64_t> shape;
    if (layers.size() > 1) shape.push_back(layers.size());
    shape.push_back(layers[0].heads.size());
    shape.push_back(static_cast<std::uint64_t>(rows));
    shape.push_back(static_cast<std::uint64_t>(cols));
    return attn::io::npy_bytes(values, shape);
}

std::vector<std::byte> matrix_npy(const Matrix& m) {
    const std::uint64_t shape[] = {static_cast<std::uint64_t>(m.rows()),
                                   static_cast<std::uint64_t>(m.cols())};
    return attn::io::npy_bytes(std::span<const float>(m.data(), static_cast<std::size_t>(m.size())),
                               shape);
}

}  // namespace

NpzMembers result_members(const std::vector<SceneResult>& layers) {
    if (layers.empty()) throw std::invalid_argument("reference: no layers");
    NpzMembers out;
    for (const auto& [name, stage] : kStages) {
        auto bytes = stack(layers, stage);
        if (!bytes.empty()) out.emplace_back(name, std::move(bytes));
    }
    const bool multi = layers.size() > 1;
    std::vector<float> empty, scale, layer_ids;
    std::uint64_t nq = 0;
    for (const auto& r : layers) {
        layer_ids.push_back(static_cast<float>(r.layer));
        for (const auto& h : r.heads) {
            nq = h.empty_rows.size();
            for (auto e : h.empty_rows)
                empty.push_back(static_cast<float>(e));
            scale.push_back(h.scale_factor);
        }
    }
    const std::uint64_t H = layers[0].heads.size(), L = layers.size();
    std::vector<std::uint64_t> es, ss;
    if (multi) es.push_back(L), ss.push_back(L);
    es.push_back(H), es.push_back(nq), ss.push_back(H);
    if (empty.size() == L * H * nq) out.emplace_back("empty_rows", attn::io::npy_bytes(empty, es));
    out.emplace_back("scale_factor", attn::io::npy_bytes(scale, ss));
    out.emplace_back("q_tokens", attn::io::npy_string_bytes(layers[0].q_tokens));
    out.emplace_back("k_tokens", attn::io::npy_string_bytes(layers[0].k_tokens));
    const float dk = static_cast<float>(layers[0].d_k);
    const std::uint64_t one[] = {1}, nl[] = {L};
    out.emplace_back("d_k", attn::io::npy_bytes(std::span<const float>(&dk, 1), one));
    out.emplace_back("layer", attn::io::npy_bytes(layer_ids, nl));
    const SceneResult& r = layers[0];
    if (!multi && r.has_vectors) {
        out.emplace_back("X", matrix_npy(r.X));
        out.emplace_back("X_kv", matrix_npy(r.Xkv));
        out.emplace_back("Q", matrix_npy(r.Q));
        out.emplace_back("K", matrix_npy(r.K));
        out.emplace_back("V", matrix_npy(r.V));
        out.emplace_back("layer_output", matrix_npy(r.output));
    }
    return out;
}

std::vector<std::byte> npz_bytes(const NpzMembers& members, bool deflate) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!src) throw std::runtime_error("reference npz: cannot create an in-memory archive");
    zip_source_keep(src);
    zip_t* z = zip_open_from_source(src, ZIP_TRUNCATE, &err);
    if (!z) {
        zip_source_free(src);
        throw std::runtime_error("reference npz: cannot create an archive");
    }
    for (const auto& [key, payload] : members) {
        zip_source_t* m = zip_source_buffer(z, payload.data(), payload.size(), 0);
        const std::string member = key + ".npy";
        const zip_int64_t idx = m ? zip_file_add(z, member.c_str(), m, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (m) zip_source_free(m);
            zip_discard(z);
            zip_source_free(src);
            throw std::runtime_error("reference npz: cannot add " + member);
        }
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx),
                                 deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) {
        zip_discard(z);
        zip_source_free(src);
        throw std::runtime_error("reference npz: cannot finish the archive");
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
    if (out.empty()) throw std::runtime_error("reference npz: cannot read back the archive");
    return out;
}

void write_result(const std::string& path, const std::vector<SceneResult>& layers) {
    attn::io::ResultStream out(path, layers.size());
    for (const auto& r : layers)
        out.add(r);
    out.finish();
}

}  // namespace reference
