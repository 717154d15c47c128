// A kept BF16 or F16 matrix's two products — X · Wᵀ (mul_t) and DY · W (mul, a Linear's input
// gradient) — on every instruction set this CPU runs (AVX-512F reads BF16 values in place,
// the others widen tiles): equal to double sums of the exact values, the same bits whether the
// weights are read through the mapping or copied out of the file, a NaN refused naming its
// element, a wrong width refused, an overflowing gradient not blamed on the weights.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "../io_test_util.hpp"
#include "../simd_test_util.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/simd/bf16_product.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/safetensors.hpp"
#include "half_tensor_file.hpp"

namespace {

using attn::Index;
using attn::Matrix;
using attn::model::FloatTensor;
using attn::model::Keep;

// Past a gradient pass (512 rows) and a depth block (1024); 1088 = 34 · 32 splits in 32s.
constexpr Index kProductRows = 1030, kProductCols = 1088;

class FloatTensorProductTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::mt19937 rng(5);
        tensors_["w_bf16"] = {"BF16",
                              {kProductRows, kProductCols},
                              half_file::random_bits(rng, kProductRows * kProductCols, true)};
        tensors_["w_f16"] = {"F16",
                             {kProductRows, kProductCols},
                             half_file::random_bits(rng, kProductRows * kProductCols, false)};
        path_ = (dir_.path / "model.safetensors").string();
        half_file::write_file(path_, tensors_);
    }
    /// The exact values of tensor NAME, in double.
    Eigen::MatrixXd exact(const std::string& name) const {
        const half_file::Raw& t = tensors_.at(name);
        Eigen::MatrixXd m(kProductRows, kProductCols);
        for (Index i = 0; i < kProductRows * kProductCols; ++i)
            m(i / kProductCols, i % kProductCols) =
                half_file::value_of(t.bits[std::size_t(i)], t.dtype == "BF16");
        return m;
    }

    io_test::TempDir dir_;
    std::string path_;
    std::map<std::string, half_file::Raw> tensors_;
};

/// float32's rounding bound for the products of A (m × k) and B (k × n) in any order: γ_k Σ|a b|.
Eigen::MatrixXd bound_of(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return (a.cwiseAbs() * b.cwiseAbs()) * (1.01 * double(a.cols()) * std::ldexp(1.0, -24));
}

TEST_F(FloatTensorProductTest, BothProductsEqualTheExactSumsOnEveryInstructionSet) {
    const attn::model::SafetensorsFile f(path_);
    std::mt19937 rng(9);
    for (const attn::simd::Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        const char* name = attn::simd::isa_name(isa);
        for (const std::string w_name : {"w_bf16", "w_f16"}) {
            const FloatTensor kept(*f.find(w_name), kProductRows, kProductCols, "w",
                                   Keep::AsStored);
            const Eigen::MatrixXd w = exact(w_name);
            for (const Index m : {Index(5), Index(64), Index(70)}) {
                const Matrix x = Matrix::Random(m, kProductCols);
                const Eigen::MatrixXd xd = x.cast<double>();
                const Matrix got = kept.mul_t(x);
                const Eigen::MatrixXd err = (got.cast<double>() - xd * w.transpose()).cwiseAbs();
                EXPECT_TRUE((err.array() <= bound_of(xd, w.transpose()).array()).all())
                    << name << " " << w_name << " mul_t, " << m << " rows: " << err.maxCoeff();
                const Matrix dy = Matrix::Random(m, kProductRows);
                const Eigen::MatrixXd dyd = dy.cast<double>();
                const Matrix back = attn::blocks::times_weight_t(dy, kept);
                ASSERT_EQ(back.rows(), m);
                ASSERT_EQ(back.cols(), kProductCols);
                const Eigen::MatrixXd err_back = (back.cast<double>() - dyd * w).cwiseAbs();
                EXPECT_TRUE((err_back.array() <= bound_of(dyd, w).array()).all())
                    << name << " " << w_name << " mul, " << m << " rows: " << err_back.maxCoeff();
            }
        }
    }
}

TEST_F(FloatTensorProductTest, ReadingInPlaceGivesTheSameBits) {
    const attn::model::SafetensorsFile f(path_);
    for (const std::string w_name : {"w_bf16", "w_f16"}) {
        const FloatTensor kept(*f.find(w_name), kProductRows, kProductCols, "w", Keep::AsStored);
        for (const Index m : {Index(3), Index(33)}) {
            const Matrix x = Matrix::Random(m, kProductCols);
            EXPECT_EQ(kept.mul_t(x, attn::model::StoredReads::InPlace), kept.mul_t(x))
                << w_name << ", " << m << " rows";
        }
    }
}

TEST_F(FloatTensorProductTest, TheGradientRefusesANonFiniteWeightNamingIt) {
    // Element 761700 is row 700, column 100.
    half_file::Raw& t = tensors_["w_bf16"];
    t.bits[761700] = 0x7f80;  // +∞
    half_file::write_file(path_, tensors_);
    const attn::model::SafetensorsFile f(path_);
    const FloatTensor kept(*f.find("w_bf16"), kProductRows, kProductCols, "the weight",
                           Keep::AsStored);
    for (const attn::simd::Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        try {
            (void)kept.mul(Matrix::Constant(6, kProductRows, 0.5f));
            ADD_FAILURE() << attn::simd::isa_name(isa) << ": an infinite weight was accepted";
        } catch (const attn::NonFiniteError& e) {
            EXPECT_NE(std::string(e.what()).find("the weight"), std::string::npos);
            EXPECT_NE(std::string(e.what()).find("element 761700"), std::string::npos) << e.what();
        }
    }
}

TEST_F(FloatTensorProductTest, TheGradientChecksItsWidthAndBlamesNoWeightForItsOwnOverflow) {
    const attn::model::SafetensorsFile f(path_);
    const FloatTensor kept(*f.find("w_bf16"), kProductRows, kProductCols, "the weight",
                           Keep::AsStored);
    try {
        (void)kept.mul(Matrix::Zero(2, kProductRows + 1));
        ADD_FAILURE() << "a gradient of the wrong width was taken";
    } catch (const attn::ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("1031 columns for 1030 rows"), std::string::npos)
            << e.what();
    }
    for (const attn::simd::Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        Matrix dy = Matrix::Constant(2, kProductRows, 0.5f);
        dy(1, 3) = std::numeric_limits<float>::infinity();
        const Matrix out = kept.mul(dy);
        EXPECT_TRUE(out.row(0).allFinite()) << attn::simd::isa_name(isa);
        EXPECT_FALSE(out.row(1).allFinite()) << attn::simd::isa_name(isa);
    }
}

}  // namespace
