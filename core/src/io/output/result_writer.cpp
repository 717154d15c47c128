// AttnScope core — writing every stage of a computed scene. GPL-3.0-or-later.
#include "attn/io/output/result_writer.hpp"

#include <algorithm>
#include <string_view>

#include <cmath>
#include <nlohmann/json.hpp>

#include "../../files/io_util.hpp"
#include "../session/session_json.hpp"
#include "attn/models/run.hpp"
#include "attn/util/error.hpp"
#include "result_layout.hpp"

// The output's layout, shared by ResultStream's .npz and .json sinks (result_stream.cpp). The
// whole-in-memory reference the stream is checked against lives in tests/core.
namespace attn::io {

namespace detail {

const std::vector<std::pair<const char*, Stage>>& stages() {
    static const std::vector<std::pair<const char*, Stage>> s = {
        {"raw", [](const HeadResult& h, Matrix&) -> const Matrix& { return h.raw; }},
        {"scaled",
         [](const HeadResult& h, Matrix& m) -> const Matrix& { return m = h.scaled_matrix(); }},
        {"softcapped",
         [](const HeadResult& h, Matrix& m) -> const Matrix& { return m = h.softcapped_matrix(); }},
        {"masked",
         [](const HeadResult& h, Matrix& m) -> const Matrix& { return m = h.masked_matrix(); }},
        {"weights", [](const HeadResult& h, Matrix&) -> const Matrix& { return h.weights; }},
        {"output", [](const HeadResult& h, Matrix&) -> const Matrix& { return h.output; }},
    };
    return s;
}

bool shapes_scores(const SceneResult& r) {
    for (const HeadResult& h : r.heads)
        if (h.shaped()) return true;
    if (r.run)
        for (const model::LayerAttention& layer : r.run->layers)
            for (const HeadResult& h : layer.heads)
                if (h.shaped()) return true;
    return false;
}

bool stage_written(const SceneResult& r, const char* name, const std::vector<std::string>* only) {
    if (only && !only->empty() && std::find(only->begin(), only->end(), name) == only->end())
        return false;
    // The soft-capped stage only where it differs from the scaled one somewhere.
    return std::string_view(name) != "softcapped" || shapes_scores(r);
}

ojson compute_json_head(const SceneResult& first) {
    ojson root;
    root["format"] = "attnscope-compute";
    root["version"] = 1;
    root["q_tokens"] = first.q_tokens;
    root["k_tokens"] = first.k_tokens;
    root["d_k"] = first.d_k;
    return root;
}

ojson compute_json_layer(const SceneResult& r, const std::vector<std::string>* only) {
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
        Matrix scratch;
        for (const auto& [name, get] : stages())
            if (stage_written(r, name, only))
                if (const Matrix& m = get(h, scratch); m.size() > 0) hj[name] = stage_json(m);
        hj["empty_rows"] = h.empty_rows;
        hj["scale_factor"] = float_value(h.scale_factor);
        heads.push_back(std::move(hj));
    }
    l["heads"] = std::move(heads);
    return l;
}

}  // namespace detail

}  // namespace attn::io
