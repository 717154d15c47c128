// AttnScope — runs one block forward and backward in float (the families' instantiation) on
// inputs read from a JSON file and prints its outputs and vector–Jacobian products as JSON: the
// C++ side of blocks_torch_test.py. GPL-3.0-or-later.
//   attn_blocks_tool INPUT.json
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "attn/blocks/attention.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/rotary.hpp"

namespace {

using namespace attn;
using namespace attn::blocks;
using json = nlohmann::json;

Matrix mat(const json& j) {
    Matrix m(Index(j.size()), j.empty() ? 0 : Index(j[0].size()));
    for (Index i = 0; i < m.rows(); ++i)
        for (Index c = 0; c < m.cols(); ++c)
            m(i, c) = j[std::size_t(i)][std::size_t(c)].get<float>();
    return m;
}

Row<float> row(const json& j) {
    Row<float> r(Index(j.size()));
    for (Index i = 0; i < r.size(); ++i)
        r(i) = j[std::size_t(i)].get<float>();
    return r;
}

json out(const Matrix& m) {
    json j = json::array();
    for (Index i = 0; i < m.rows(); ++i)
        j.push_back(std::vector<float>(m.row(i).data(), m.row(i).data() + m.cols()));
    return j;
}

json out(const Row<float>& r) {
    return std::vector<float>(r.data(), r.data() + r.size());
}

Activation act_of(const std::string& name) {
    Activation a;
    if (!activation_from_name(name, a)) throw std::runtime_error("unknown activation " + name);
    return a;
}

json run(const json& in) {
    const std::string block = in.at("block");
    json r;
    if (block == "layer_norm") {
        const Matrix x = mat(in["x"]), dy = mat(in["dy"]);
        const Row<float> w = row(in["w"]), b = row(in["b"]);
        const double eps = in["eps"];
        const NormGrad<float> g = layer_norm_vjp<float>(x, w, eps, dy);
        r = {{"y", out(layer_norm<float>(x, w, b, eps))},
             {"dx", out(g.dx)},
             {"dw", out(g.dw)},
             {"db", out(g.db)}};
    } else if (block == "rms_norm") {
        const Matrix x = mat(in["x"]), dy = mat(in["dy"]);
        const Row<float> w = row(in["w"]);
        const double eps = in["eps"];
        const Gain gain = in["one_plus_w"].get<bool>() ? Gain::OnePlusW : Gain::W;
        const NormGrad<float> g = rms_norm_vjp<float>(x, w, eps, dy, gain);
        r = {{"y", out(rms_norm<float>(x, w, eps, gain))}, {"dx", out(g.dx)}, {"dw", out(g.dw)}};
    } else if (block == "activation") {
        Matrix x = mat(in["x"]);
        const Matrix dy = mat(in["dy"]);
        const Activation a = act_of(in["act"]);
        r["dx"] = out(activate_vjp<float>(x, a, dy));
        activate(x, a);
        r["y"] = out(x);
    } else if (block == "gated") {
        const Matrix gate = mat(in["gate"]), up = mat(in["up"]), dy = mat(in["dy"]);
        const Activation a = act_of(in["act"]);
        const GatedGrad<float> g = gated_vjp<float>(gate, up, a, dy);
        r = {{"y", out(gated<float>(gate, up, a))}, {"dgate", out(g.dgate)}, {"dup", out(g.dup)}};
    } else if (block == "linear") {
        const Matrix x = mat(in["x"]), w = mat(in["w"]), dy = mat(in["dy"]);
        const Row<float> b = row(in["b"]);
        const LinearGrad<float> g = linear_vjp_all<float>(x, OutIn<Matrix>{w}, dy);
        r = {{"y", out(linear<float>(x, OutIn<Matrix>{w}, b))},
             {"dx", out(g.dx)},
             {"dw", out(g.dw)},
             {"db", out(g.db)}};
    } else if (block == "rotary") {
        RopeSpec spec;
        spec.rotary_dim = in["rotary_dim"];
        spec.theta = in["theta"];
        const RopeTable<float> t =
            rope_table<float>(rope_frequencies(spec), in["first"], Index(in["x"].size()));
        Matrix y = mat(in["x"]), dx = mat(in["dy"]);
        rotate_half(y, t);
        rotate_half_vjp(dx, t);
        r = {{"y", out(y)}, {"dx", out(dx)}};
    } else if (block == "attention") {
        const Matrix q = mat(in["q"]), k = mat(in["k"]), v = mat(in["v"]), dy = mat(in["dy"]);
        HeadsSpec<float> spec{in["heads"], in["kv_heads"], in["head_dim"], {}};
        const Index n = q.rows(), window = in["window"];
        MaskSpec mask;
        mask.kind = MaskKind::Causal;
        if (window > 0) mask = causal_window(n, window);
        for (Index h = 0; h < spec.heads; ++h) {
            HeadSpec<float> s;
            s.multiplier = in["multiplier"];
            s.softcap = in["softcap"];
            s.tempering = in.value("tempering", 1.f);
            if (in.contains("bias")) s.bias = mat(in["bias"][std::size_t(h)]);
            s.allowed = build_mask(mask, n, n);
            spec.head.push_back(s);
        }
        Matrix o;
        const auto f = heads_forward<float>(q, k, v, spec, o);
        const HeadsGrad<float> g = heads_vjp<float>(q, k, v, spec, f, dy);
        r = {{"y", out(o)}, {"dq", out(g.dq)}, {"dk", out(g.dk)}, {"dv", out(g.dv)}};
    } else if (block == "embedding") {
        const Matrix tokens = mat(in["tokens"]), positions = mat(in["positions"]),
                     types = mat(in["types"]), dy = mat(in["dy"]);
        const std::vector<std::int32_t> ids = in["ids"];
        const std::vector<int> tt = in["token_types"];
        const Index first = in["first"];
        const EmbeddingSpec<Matrix, float> spec{&tokens, &positions, &types, false,
                                                in["scale"].get<float>()};
        const EmbeddingGrad<float> g = embed_vjp<float>(spec, ids, tt, first, dy, tokens.rows(),
                                                        positions.rows(), types.rows());
        r = {{"y", out(embed<float>(spec, ids, tt, first, tokens.cols()))},
             {"dtokens", out(g.dtokens)},
             {"dpositions", out(g.dpositions)},
             {"dtypes", out(g.dtypes)}};
    } else {
        throw std::runtime_error("unknown block " + block);
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: attn_blocks_tool INPUT.json\n";
        return 2;
    }
    try {
        std::ifstream f(argv[1]);
        std::cout << run(json::parse(f)).dump() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "attn_blocks_tool: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
