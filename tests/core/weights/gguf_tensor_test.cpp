// AttnScope — a quantised GGUF tensor as a FloatTensor: products, rows and blocks decoded a
// block at a time equal the same operations on the whole decoded matrix (brute force), with the
// rows in a given order (llama's Q/K un-permuted); and the permutation is convert_hf_to_gguf's
// inverse. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"
#include "attn/weights/safetensors.hpp"
#include "attn/weights/weights.hpp"

namespace {

using attn::Index;
using attn::Matrix;

TEST(GgufTensor, BlocksDecodedInsideProductsEqualTheDecodedMatrix) {
    io_test::TempDir dir;
    const std::string file = dir.file("all.gguf"), want = dir.file("all.bin");
    const std::string command =
        "/usr/bin/python3 " ATTN_GGUF_WRITER " " + file + " " + want + " 11 --alignment 32";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const attn::model::GgufFile g(file);
    int checked = 0;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    for (const auto& t : g.tensors()) {
        if (attn::model::gguf_block_values(t.type) == 1) continue;
        // Rows of dims[0] values; a third dimension only makes more of them.
        const Index cols = Index(t.dims[0]), rows = Index(t.count) / cols;
        attn::model::TensorInfo info;
        info.dtype = attn::model::DType::Other;
        info.dtype_name = attn::model::gguf_type_name(std::uint32_t(t.type));
        info.quantised = int(t.type);
        info.shape = {rows, cols};
        info.bytes = g.data(t);
        std::vector<Index> order(std::size_t(rows), 0);
        for (Index r = 0; r < rows; ++r)
            order[std::size_t(r)] = (r + 1) % rows;  // row r is stored row r + 1
        const attn::model::FloatTensor q(info, rows, cols, info.dtype_name,
                                         attn::model::Keep::AsStored, order);
        EXPECT_FALSE(q.is_float());
        const std::vector<float> values = g.floats(t);
        Matrix dense(rows, cols);
        for (Index r = 0; r < rows; ++r)
            for (Index c = 0; c < cols; ++c)
                dense(r, c) = values[std::size_t(order[std::size_t(r)] * cols + c)];
        Matrix x(5, cols);
        for (Index i = 0; i < x.size(); ++i)
            x.data()[i] = normal(rng);
        const Matrix want_product = x * dense.transpose();
        const Matrix got = q.mul_t(x);
        EXPECT_LT((got - want_product).cwiseAbs().maxCoeff(),
                  1e-5f * want_product.cwiseAbs().maxCoeff())
            << info.dtype_name;
        EXPECT_EQ(q.row(1), dense.row(1).transpose()) << info.dtype_name;
        // A block whose columns start and end inside quantisation blocks.
        EXPECT_EQ(q.block(1, 37, 2, 100), dense.block(1, 37, 2, 100)) << info.dtype_name;
        ++checked;
    }
    EXPECT_EQ(checked, 8);  // Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K
}

TEST(GgufTensor, UnpermutedRowsInvertTheConvertersPermute) {
    // convert_hf_to_gguf.py's permute for 2 heads of 6 rows: per head, rows [0 1 2 | 3 4 5]
    // (halves of the rotary pairs) are stored interleaved as [0 3 1 4 2 5].
    const std::vector<Index> order = attn::model::gguf_unpermuted_rows(12, 2, "q");
    // Hugging Face's row r is the stored row order[r].
    EXPECT_EQ(order, (std::vector<Index>{0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}));
    EXPECT_THROW((void)attn::model::gguf_unpermuted_rows(10, 2, "q"), attn::ShapeError);
}

}  // namespace
