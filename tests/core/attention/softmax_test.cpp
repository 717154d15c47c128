// Tests of attn::softmax_rows / hardmax_rows: stability, infinities, empty rows, NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../test_util.hpp"
#include "attn/attention/softmax.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Matrix;
using attn::MatrixD;

template <class M>
class SoftmaxTyped : public ::testing::Test {};
using Types = ::testing::Types<Matrix, MatrixD>;
TYPED_TEST_SUITE(SoftmaxTyped, Types);

TYPED_TEST(SoftmaxTyped, HandValues) {
    using M = TypeParam;
    using T = typename M::Scalar;
    M x(2, 3);
    x << 0, std::log(T(2)), std::log(T(5)),  // weights 1:2:5
        1, 1, 1;
    const M w = attn::softmax_rows(x);
    EXPECT_NEAR(w(0, 0), 1.0 / 8, 1e-7);
    EXPECT_NEAR(w(0, 1), 2.0 / 8, 1e-7);
    EXPECT_NEAR(w(0, 2), 5.0 / 8, 1e-7);
    for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(w(1, j), 1.0 / 3, 1e-7);
}

TYPED_TEST(SoftmaxTyped, HugeScoresDoNotOverflow) {
    using M = TypeParam;
    using T = typename M::Scalar;
    M x(3, 3);
    x << T(1e30), T(1e30) - T(1e24), T(-1e30),                               //
        std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), 0,  //
        1000, 999, 0;
    const M w = attn::softmax_rows(x);
    EXPECT_TRUE(w.allFinite());
    EXPECT_NEAR(w(0, 0), 1.0, 1e-7);
    EXPECT_EQ(w(0, 2), T(0));
    EXPECT_EQ(w(1, 0), T(1));
    const double e = std::exp(-1.0);
    EXPECT_NEAR(w(2, 0), 1 / (1 + e), 1e-6);
    EXPECT_NEAR(w(2, 1), e / (1 + e), 1e-6);
}

TYPED_TEST(SoftmaxTyped, InfinitiesAndEmptyRows) {
    using M = TypeParam;
    using T = typename M::Scalar;
    const T inf = std::numeric_limits<T>::infinity();
    M x(4, 3);
    x << inf, 5, inf,      //
        -inf, -inf, -inf,  //
        -inf, 2, -inf,     //
        inf, -inf, 0;
    std::vector<std::uint8_t> empty;
    const M w = attn::softmax_rows(x, &empty);
    EXPECT_EQ(empty, (std::vector<std::uint8_t>{0, 1, 0, 0}));
    EXPECT_EQ(w(0, 0), T(0.5));
    EXPECT_EQ(w(0, 1), T(0));
    EXPECT_EQ(w(0, 2), T(0.5));
    EXPECT_TRUE(w.row(1).isZero(0));
    EXPECT_EQ(w(2, 1), T(1));
    EXPECT_EQ(w(2, 0), T(0));
    EXPECT_EQ(w(3, 0), T(1));
    EXPECT_TRUE(w.allFinite());
}

TYPED_TEST(SoftmaxTyped, NaNThrowsWithPosition) {
    using M = TypeParam;
    using T = typename M::Scalar;
    M x(2, 3);
    x << 1, 2, 3, 4, std::numeric_limits<T>::quiet_NaN(), 6;
    EXPECT_THROW_MSG(attn::softmax_rows(x), attn::NonFiniteError, "row 1", "column 1");
    x(1, 1) = 0;
    x(0, 0) = -std::numeric_limits<T>::infinity();
    x(0, 2) = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW(attn::softmax_rows(x), attn::NonFiniteError);
}

TEST(Softmax, RowsSumToOneOnRandomInputs) {
    attn::Rng rng(5);
    for (int n : {1, 2, 7, 64, 1000}) {
        const Matrix x = rng.normal_matrix(8, n, 30.0);
        const Matrix w = attn::softmax_rows(x);
        for (int i = 0; i < 8; ++i)
            EXPECT_NEAR(w.row(i).sum(), 1.f, 1e-5);
        EXPECT_GE(w.minCoeff(), 0.f);
        // The largest logit gets the largest weight.
        for (int i = 0; i < 8; ++i) {
            attn::Index a, b;
            x.row(i).maxCoeff(&a);
            w.row(i).maxCoeff(&b);
            EXPECT_EQ(a, b);
        }
    }
}

TEST(Softmax, FloatAgreesWithDouble) {
    attn::Rng rng(6);
    const Matrix x = rng.normal_matrix(10, 50, 5.0);
    const MatrixD wd = attn::softmax_rows(MatrixD(x.cast<double>()));
    EXPECT_LT((attn::softmax_rows(x).cast<double>() - wd).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Hardmax, ArgmaxWithTiesSplitEqually) {
    const float inf = std::numeric_limits<float>::infinity();
    Matrix x(4, 4);
    x << 1, 3, 3, 2,             //
        -inf, -inf, -inf, -inf,  //
        1e30f, 0, 0, 0,          //
        inf, inf, inf, 0;
    std::vector<std::uint8_t> empty;
    const Matrix w = attn::hardmax_rows(x, &empty);
    EXPECT_EQ(empty, (std::vector<std::uint8_t>{0, 1, 0, 0}));
    EXPECT_EQ(w(0, 1), 0.5f);
    EXPECT_EQ(w(0, 2), 0.5f);
    EXPECT_EQ(w(0, 0), 0.f);
    EXPECT_TRUE(w.row(1).isZero(0));
    EXPECT_EQ(w(2, 0), 1.f);
    EXPECT_FLOAT_EQ(w(3, 0), 1.f / 3.f);
    EXPECT_EQ(w(3, 3), 0.f);
    Matrix n(1, 2);
    n << 0, std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW_MSG(attn::hardmax_rows(n), attn::NonFiniteError, "column 1");
}

}  // namespace
