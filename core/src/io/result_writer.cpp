// AttnScope core — writing every stage of a computed scene. GPL-3.0-or-later.
#include "attn/io/result_writer.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "attn/error.hpp"
#include "io_util.hpp"
#include "result_layout.hpp"
#include "session_json.hpp"

namespace attn::io {

namespace detail {

const std::vector<std::pair<const char*, Stage>>& stages() {
    static const std::vector<std::pair<const char*, Stage>> s = {
        {"raw", [](const HeadResult& h) -> const Matrix& { return h.raw; }},
        {"scaled", [](const HeadResult& h) -> const Matrix& { return h.scaled; }},
        {"masked", [](const HeadResult& h) -> const Matrix& { return h.masked; }},
        {"weights", [](const HeadResult& h) -> const Matrix& { return h.weights; }},
        {"output", [](const HeadResult& h) -> const Matrix& { return h.output; }},
    };
    return s;
}

}  // namespace detail

namespace {

using detail::Stage;
using detail::stages;

void check(const std::vector<SceneResult>& layers) {
    if (layers.empty()) throw ArgumentError("write_result: no results to write");
    for (const auto& r : layers)
        if (r.heads.size() != layers[0].heads.size())
            throw ShapeError("write_result: layers have different head counts");
}

/// Stacks one stage over layers and heads; empty when the stage is empty everywhere.
std::vector<std::byte> stack(const std::vector<SceneResult>& layers, const Stage& get) {
    bool any = false;
    Index rows = -1, cols = -1;
    for (const auto& r : layers)
        for (const auto& h : r.heads) {
            const Matrix& m = get(h);
            if (m.size() > 0) any = true;
            if (rows < 0) rows = m.rows(), cols = m.cols();
            if (m.rows() != rows || m.cols() != cols)
                throw ShapeError("write_result: heads have different matrix shapes");
        }
    if (!any) return {};
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(layers.size() * layers[0].heads.size()) *
                   static_cast<std::size_t>(rows * cols));
    for (const auto& r : layers)
        for (const auto& h : r.heads) {
            const Matrix& m = get(h);
            values.insert(values.end(), m.data(), m.data() + m.size());
        }
    std::vector<std::uint64_t> shape;
    if (layers.size() > 1) shape.push_back(layers.size());
    shape.push_back(layers[0].heads.size());
    shape.push_back(static_cast<std::uint64_t>(rows));
    shape.push_back(static_cast<std::uint64_t>(cols));
    return npy_bytes(values, shape);
}

std::vector<std::byte> matrix_npy(const Matrix& m) {
    const std::uint64_t shape[] = {static_cast<std::uint64_t>(m.rows()),
                                   static_cast<std::uint64_t>(m.cols())};
    return npy_bytes(std::span<const float>(m.data(), static_cast<std::size_t>(m.size())), shape);
}

}  // namespace

NpzMembers result_members(const std::vector<SceneResult>& layers) {
    check(layers);
    NpzMembers out;
    for (const auto& [name, get] : stages()) {
        auto bytes = stack(layers, get);
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
    if (empty.size() == L * H * nq) out.emplace_back("empty_rows", npy_bytes(empty, es));
    out.emplace_back("scale_factor", npy_bytes(scale, ss));
    out.emplace_back("q_tokens", npy_string_bytes(layers[0].q_tokens));
    out.emplace_back("k_tokens", npy_string_bytes(layers[0].k_tokens));
    const float dk = static_cast<float>(layers[0].d_k);
    const std::uint64_t one[] = {1}, nl[] = {L};
    out.emplace_back("d_k", npy_bytes(std::span<const float>(&dk, 1), one));
    out.emplace_back("layer", npy_bytes(layer_ids, nl));
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

namespace detail {

ojson compute_json_head(const SceneResult& first) {
    ojson root;
    root["format"] = "attnscope-compute";
    root["version"] = 1;
    root["q_tokens"] = first.q_tokens;
    root["k_tokens"] = first.k_tokens;
    root["d_k"] = first.d_k;
    return root;
}

ojson compute_json_layer(const SceneResult& r) {
    const auto stage_json = [](const Matrix& m) {
        ojson rows = ojson::array();
        for (Index i = 0; i < m.rows(); ++i) {
            ojson row = ojson::array();
            for (Index j = 0; j < m.cols(); ++j)
                row.push_back(std::isfinite(m(i, j)) ? ojson(float_value(m(i, j))) : ojson());
            rows.push_back(std::move(row));
        }
        return rows;
    };
    ojson l;
    l["layer"] = r.layer;
    ojson heads = ojson::array();
    for (const auto& h : r.heads) {
        ojson hj;
        for (const auto& [name, get] : stages())
            if (get(h).size() > 0) hj[name] = stage_json(get(h));
        hj["empty_rows"] = h.empty_rows;
        hj["scale_factor"] = float_value(h.scale_factor);
        heads.push_back(std::move(hj));
    }
    l["heads"] = std::move(heads);
    return l;
}

}  // namespace detail

std::string result_json(const std::vector<SceneResult>& layers) {
    check(layers);
    detail::ojson root = detail::compute_json_head(layers[0]);
    detail::ojson ls = detail::ojson::array();
    for (const auto& r : layers)
        ls.push_back(detail::compute_json_layer(r));
    root["layers"] = std::move(ls);
    return root.dump() + "\n";
}

void write_result(const std::string& path, const std::vector<SceneResult>& layers) {
    check(layers);
    ResultStream out(path, layers.size());
    for (const auto& r : layers)
        out.add(r);
    out.finish();
}

void write_result(const std::string& path, const SceneResult& result) {
    write_result(path, std::vector<SceneResult>{result});
}

}  // namespace attn::io
