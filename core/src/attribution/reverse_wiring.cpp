// AttnScope core — a described layer's residual wiring (pre-norm, parallel, post-norm,
// sandwich) forward with its tapes and in reverse; the last layer may leave only the rows the
// logit reads. GPL-3.0-or-later.
#include "attn/util/error.hpp"
#include "reverse_layer.hpp"

namespace attn::attrib::detail {

namespace {

/// The rows ROWS of M.
Matrix rows_of(const Matrix& m, const std::vector<Index>& rows) {
    Matrix out(Index(rows.size()), m.cols());
    for (std::size_t r = 0; r < rows.size(); ++r)
        out.row(Index(r)) = m.row(rows[r]);
    return out;
}

/// D's rows placed at ROWS of a zero matrix of N rows.
Matrix scatter(const Matrix& d, const std::vector<Index>& rows, Index n) {
    Matrix out = Matrix::Zero(n, d.cols());
    for (std::size_t r = 0; r < rows.size(); ++r)
        out.row(rows[r]) = d.row(Index(r));
    return out;
}

Matrix every_row_forward(const LayerContext& c, const Matrix& x, LayerTape& t) {
    const model::LayerDescription& d = *c.desc;
    switch (d.residual) {
        case blocks::Residual::PreNorm: {
            t.x1 = x + attention_forward(c, norm_forward(d.norm1, x), t.attention);
            return t.x1 + feed_forward(d, norm_forward(d.norm2, t.x1), t);
        }
        case blocks::Residual::Parallel:
            return x + attention_forward(c, norm_forward(d.norm1, x), t.attention) +
                   feed_forward(d, norm_forward(d.norm2, x), t);
        case blocks::Residual::PostNorm: {
            t.u1 = x + attention_forward(c, x, t.attention);
            t.x1 = norm_forward(d.norm1, t.u1);
            t.u2 = t.x1 + feed_forward(d, t.x1, t);
            return norm_forward(d.norm2, t.u2);
        }
        case blocks::Residual::Sandwich: {
            t.a = attention_forward(c, norm_forward(d.norm1, x), t.attention);
            t.x1 = x + norm_forward(d.post1, t.a);
            t.m = feed_forward(d, norm_forward(d.norm2, t.x1), t);
            return t.x1 + norm_forward(d.post2, t.m);
        }
    }
    throw ArgumentError("the reverse pass: an unknown residual wiring");
}

Matrix every_row_backward(const LayerContext& c, const LayerTape& t, const Matrix& dy,
                          std::vector<Matrix>* axg) {
    const model::LayerDescription& d = *c.desc;
    switch (d.residual) {
        case blocks::Residual::PreNorm: {
            const Matrix dx1 = dy + norm_backward(d.norm2, t.x1, feed_backward(d, t, dy));
            return dx1 + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, dx1, axg));
        }
        case blocks::Residual::Parallel:
            return dy + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, dy, axg)) +
                   norm_backward(d.norm2, t.x, feed_backward(d, t, dy));
        case blocks::Residual::PostNorm: {
            const Matrix du2 = norm_backward(d.norm2, t.u2, dy);
            const Matrix dx1 = du2 + feed_backward(d, t, du2);
            const Matrix du1 = norm_backward(d.norm1, t.u1, dx1);
            return du1 + attention_backward(c, t.attention, du1, axg);
        }
        case blocks::Residual::Sandwich: {
            const Matrix dm = norm_backward(d.post2, t.m, dy);
            const Matrix dx1 = dy + norm_backward(d.norm2, t.x1, feed_backward(d, t, dm));
            const Matrix da = norm_backward(d.post1, t.a, dx1);
            return dx1 + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, da, axg));
        }
    }
    throw ArgumentError("the reverse pass: an unknown residual wiring");
}

}  // namespace

Matrix layer_forward(const LayerContext& c, const Matrix& x, LayerTape* tape) {
    LayerTape local;
    LayerTape& t = tape ? *tape : local;
    const model::LayerDescription& d = *c.desc;
    t.x = x;
    if (c.only.empty()) return every_row_forward(c, x, t);
    if (d.residual == blocks::Residual::PreNorm) {
        // Attention reads every row's keys and values; the feed-forward block (most of a
        // layer's products) runs on the rows that leave the layer alone.
        t.x1 = rows_of(x + attention_forward(c, norm_forward(d.norm1, x), t.attention), c.only);
        return t.x1 + feed_forward(d, norm_forward(d.norm2, t.x1), t);
    }
    return rows_of(every_row_forward(c, x, t), c.only);
}

Matrix layer_backward(const LayerContext& c, const LayerTape& t, const Matrix& dy,
                      std::vector<Matrix>* axg) {
    const model::LayerDescription& d = *c.desc;
    if (c.only.empty()) return every_row_backward(c, t, dy, axg);
    if (d.residual == blocks::Residual::PreNorm) {
        const Matrix dx1 =
            scatter(dy + norm_backward(d.norm2, t.x1, feed_backward(d, t, dy)), c.only, t.x.rows());
        return dx1 + norm_backward(d.norm1, t.x, attention_backward(c, t.attention, dx1, axg));
    }
    return every_row_backward(c, t, scatter(dy, c.only, t.x.rows()), axg);
}

}  // namespace attn::attrib::detail
