// AttnScope core — the embedding block with its reverse: token rows, learned or sinusoidal
// position rows, token-type rows, a scale (Gemma's √d). GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/blocks/tensor.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::blocks {

/// Row R of a table held as an Eigen matrix.
template <class M>
auto table_row(const M& table, Index r) {
    return table.row(r);
}
/// Row R of a FloatTensor table (widened when it is held in half precision).
inline Row<float> table_row(const model::FloatTensor& table, Index r) {
    return table.is_float() ? Row<float>(table.matrix().row(r)) : Row<float>(table.row(r));
}

/// The classic Transformer's sinusoidal positions: row p, column 2i is sin(p / base^(2i/d)),
/// 2i + 1 its cos; ROWS positions from FIRST, D columns.
template <class S>
Mat<S> sinusoidal_positions(Index first, Index rows, Index d, double base = 10000.0) {
    Mat<S> out(rows, d);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < d; ++c) {
            const double a = double(first + r) / std::pow(base, double(c - c % 2) / double(d));
            out(r, c) = S(c % 2 ? std::cos(a) : std::sin(a));
        }
    return out;
}

/// Marian's sinusoidal positions, not interleaved: column c < ⌈d/2⌉ is sin(p / base^(2c/d)),
/// column ⌈d/2⌉ + c its cos (transformers' MarianSinusoidalPositionalEmbedding); ROWS
/// positions from FIRST, D columns.
template <class S>
Mat<S> sinusoidal_positions_halves(Index first, Index rows, Index d, double base = 10000.0) {
    Mat<S> out(rows, d);
    const Index half = (d + 1) / 2;
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < d; ++c) {
            const Index j = c < half ? c : c - half;  // the pair 2j, 2j + 1 of the interleaved form
            const double a = double(first + r) / std::pow(base, double(2 * j) / double(d));
            out(r, c) = S(c < half ? std::sin(a) : std::cos(a));
        }
    return out;
}

/// The embedding's tables (null: the family has none) and scale.
template <class Table, class S>
struct EmbeddingSpec {
    const Table* tokens = nullptr;     ///< vocab × d
    const Table* positions = nullptr;  ///< learned positions, max_positions × d
    const Table* types = nullptr;      ///< token types, type_vocab × d
    bool sinusoidal = false;           ///< add sinusoidal_positions
    S scale = S(1);                    ///< multiplies the sum (Gemma: √d, rounded to S)
};

/// Rows [first, n) of the embedding of IDS (TYPES: one token type per id, or empty): token
/// row, then + position row, then + type row, then × scale.
template <class S, class Table>
Mat<S> embed(const EmbeddingSpec<Table, S>& spec, const std::vector<std::int32_t>& ids,
             const std::vector<int>& types, Index first, Index d) {
    const Index n = Index(ids.size());
    Mat<S> x(n - first, d);
    const Mat<S> sines = spec.sinusoidal ? sinusoidal_positions<S>(first, n - first, d) : Mat<S>();
    for (Index i = first; i < n; ++i) {
        if (spec.positions && spec.types)
            x.row(i - first) = table_row(*spec.tokens, ids[std::size_t(i)]) +
                               table_row(*spec.positions, i) +
                               table_row(*spec.types, types[std::size_t(i)]);
        else if (spec.positions)
            x.row(i - first) =
                table_row(*spec.tokens, ids[std::size_t(i)]) + table_row(*spec.positions, i);
        else
            x.row(i - first) = table_row(*spec.tokens, ids[std::size_t(i)]);
        if (spec.types && !spec.positions)
            x.row(i - first) += table_row(*spec.types, types[std::size_t(i)]);
        if (spec.sinusoidal) x.row(i - first) += sines.row(i - first);
    }
    if (spec.scale != S(1)) x *= spec.scale;
    return x;
}

/// The embedding's reverse: the gradients of its tables (each row scattered to where it was
/// read), zero where a row was not read.
template <class S>
struct EmbeddingGrad {
    Mat<S> dtokens, dpositions, dtypes;
};

/// embed's vector–Jacobian product for DY (rows [first, n)), tables of the given row counts.
template <class S, class Table>
EmbeddingGrad<S> embed_vjp(const EmbeddingSpec<Table, S>& spec,
                           const std::vector<std::int32_t>& ids, const std::vector<int>& types,
                           Index first, const Mat<S>& dy, Index vocab, Index max_positions,
                           Index type_vocab) {
    const Index d = dy.cols();
    EmbeddingGrad<S> g{Mat<S>::Zero(vocab, d), Mat<S>::Zero(spec.positions ? max_positions : 0, d),
                       Mat<S>::Zero(spec.types ? type_vocab : 0, d)};
    for (Index i = first; i < Index(ids.size()); ++i) {
        const auto row = dy.row(i - first) * spec.scale;
        g.dtokens.row(ids[std::size_t(i)]) += row;
        if (spec.positions) g.dpositions.row(i) += row;
        if (spec.types) g.dtypes.row(types[std::size_t(i)]) += row;
    }
    return g;
}

}  // namespace attn::blocks
