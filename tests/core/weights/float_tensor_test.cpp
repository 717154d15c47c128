// Half-precision weights kept in the mapped file (Keep::AsStored) and widened tile by tile: the
// products, rows and blocks equal those of the widened copy, a NaN is refused naming its element
// (at open when widened, by the product, row or block that reads it when kept), and the memory
// budget counts two bytes per kept value. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "../io_test_util.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/safetensors.hpp"
#include "attn/weights/weights.hpp"
#include "half_tensor_file.hpp"

namespace {

using attn::Index;
using attn::Matrix;
using attn::model::FloatTensor;
using attn::model::Keep;
using half_file::random_bits;
using half_file::Raw;
using half_file::value_of;
using half_file::write_file;

// Large enough for several tiles (a tile is about 2¹⁹ floats) and for two threads.
constexpr Index kRows = 3000, kCols = 700;

class FloatTensorTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::mt19937 rng(7);
        tensors_["w_bf16"] = {"BF16", {kRows, kCols}, random_bits(rng, kRows * kCols, true)};
        tensors_["w_f16"] = {"F16", {kRows, kCols}, random_bits(rng, kRows * kCols, false)};
        tensors_["gain"] = {"BF16", {kCols}, random_bits(rng, kCols, true)};
        path_ = (dir_.path / "model.safetensors").string();
        write_file(path_, tensors_);
        x_ = Matrix::Random(5, kCols);
    }
    /// The exact values of tensor NAME, in double.
    Eigen::MatrixXd exact(const std::string& name) const {
        const Raw& t = tensors_.at(name);
        Eigen::MatrixXd m(kRows, kCols);
        for (Index i = 0; i < kRows * kCols; ++i)
            m(i / kCols, i % kCols) = value_of(t.bits[std::size_t(i)], t.dtype == "BF16");
        return m;
    }

    io_test::TempDir dir_;
    std::string path_;
    std::map<std::string, Raw> tensors_;
    Matrix x_;
};

TEST_F(FloatTensorTest, KeptHalvesMultiplyAsTheExactValuesDo) {
    const attn::model::SafetensorsFile f(path_);
    for (const std::string name : {"w_bf16", "w_f16"}) {
        const FloatTensor kept(*f.find(name), kRows, kCols, name, Keep::AsStored);
        const FloatTensor widened(*f.find(name), kRows, kCols, name, Keep::Widened);
        EXPECT_FALSE(kept.is_float());
        EXPECT_TRUE(widened.is_float());
        const Eigen::MatrixXd w = exact(name);
        // Several rows (a matrix product, widened tile by tile) and up to four rows (a generation
        // step, a retyped word: BF16 read in place, 700 = 43 · 16 + 12 leaving a tail).
        for (const Index m : {Index(5), Index(4), Index(3), Index(1)}) {
            const Matrix x = x_.topRows(m);
            const Eigen::MatrixXd want = x.cast<double>() * w.transpose();
            const Matrix got = kept.mul_t(x), also = widened.mul_t(x);
            ASSERT_EQ(got.rows(), m);
            ASSERT_EQ(got.cols(), kRows);
            // float32 sums of 700 products of magnitude ≤ 8: a bound of 700 · 8 · 2⁻²³ · 8.
            const double bound = 700 * 8 * 8 * std::ldexp(1.0, -23);
            EXPECT_LT((got.cast<double>() - want).cwiseAbs().maxCoeff(), bound) << name;
            EXPECT_LT((also.cast<double>() - want).cwiseAbs().maxCoeff(), bound) << name;
        }
        // Widening is exact: rows and blocks equal the values bit for bit.
        for (const Index r : {Index(0), Index(1234), kRows - 1})
            for (Index c = 0; c < kCols; ++c)
                ASSERT_EQ(double(kept.row(r)(c)), w(r, c)) << name << " row " << r;
        const Matrix b = kept.block(100, 640, 7, 60);
        for (Index r = 0; r < 7; ++r)
            for (Index c = 0; c < 60; ++c)
                ASSERT_EQ(double(b(r, c)), w(100 + r, 640 + c)) << name;
        EXPECT_EQ(widened.block(100, 640, 7, 60), b);
        EXPECT_THROW(kept.matrix(), attn::Error);
    }
}

TEST_F(FloatTensorTest, VectorsAreAlwaysWidened) {
    const attn::model::SafetensorsFile f(path_);
    const FloatTensor gain(*f.find("gain"), 1, kCols, "gain", Keep::AsStored);
    EXPECT_TRUE(gain.is_float());
    EXPECT_EQ(double(gain.matrix()(0, 3)), value_of(tensors_["gain"].bits[3], true));
}

/// Runs USE and expects a NonFiniteError naming "the weight" and element 123456.
template <class Use>
void expect_refused(const char* how, Use use) {
    try {
        use();
        ADD_FAILURE() << how << ": a NaN was accepted";
    } catch (const attn::NonFiniteError& e) {
        EXPECT_NE(std::string(e.what()).find("the weight"), std::string::npos) << how;
        EXPECT_NE(std::string(e.what()).find("element 123456"), std::string::npos)
            << how << ": " << e.what();
    }
}

TEST_F(FloatTensorTest, ANonFiniteHalfIsRefusedNamingItsElement) {
    // Element 123456 is row 176, column 256.
    for (const bool bf16 : {true, false}) {
        Raw& t = tensors_[bf16 ? "w_bf16" : "w_f16"];
        const std::uint16_t old = t.bits[123456];
        t.bits[123456] = bf16 ? 0x7fc0 : 0x7e00;  // a quiet NaN
        write_file(path_, tensors_);
        const attn::model::SafetensorsFile f(path_);
        const auto& info = *f.find(bf16 ? "w_bf16" : "w_f16");
        // Widened: refused while it is widened, at open.
        expect_refused("widened", [&] { FloatTensor(info, kRows, kCols, "the weight"); });
        // As stored: not read at open; refused by every use that reaches the value, never
        // computed with.
        const FloatTensor kept(info, kRows, kCols, "the weight", Keep::AsStored);
        for (const Index m : {Index(1), Index(3), Index(64)}) {
            const Matrix x = Matrix::Constant(m, kCols, 0.5f);
            expect_refused("mul_t", [&] { (void)kept.mul_t(x); });
        }
        expect_refused("row", [&] { (void)kept.row(176); });
        expect_refused("block", [&] { (void)kept.block(170, 250, 10, 10); });
        EXPECT_TRUE(kept.row(175).allFinite()) << "a row without the NaN is read";
        EXPECT_TRUE(kept.block(170, 0, 10, 250).allFinite()) << "a block beside it is read";
        t.bits[123456] = old;
    }
}

TEST_F(FloatTensorTest, AnOverflowingInputIsNotBlamedOnTheWeights) {
    // Finite weights and an infinite input: the product's output is not finite, the weights
    // are searched, found finite, and the output is returned for the caller to report.
    const attn::model::SafetensorsFile f(path_);
    const FloatTensor kept(*f.find("w_bf16"), kRows, kCols, "the weight", Keep::AsStored);
    Matrix x = Matrix::Constant(2, kCols, 0.5f);
    x(1, 3) = std::numeric_limits<float>::infinity();
    const Matrix out = kept.mul_t(x);
    EXPECT_TRUE(out.row(0).allFinite());
    EXPECT_FALSE(out.row(1).allFinite());
}

TEST_F(FloatTensorTest, TheBudgetCountsTwoBytesForEachKeptValue) {
    std::ofstream(dir_.path / "config.json") << "{}";
    const double matrices = 2.0 * double(kRows * kCols), vector = double(kCols);
    EXPECT_EQ(attn::model::Weights(dir_.path.string(), Keep::AsStored).float_bytes(),
              2 * matrices + 4 * vector);
    EXPECT_EQ(attn::model::Weights(dir_.path.string()).float_bytes(), 4 * (matrices + vector));
}

}  // namespace
