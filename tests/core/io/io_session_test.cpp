// Tests of session files: exact round trips of every scene parameter, the opaque views state,
// versioning and error messages.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using namespace attn;

/// Bitwise equality of float matrices (so -0 and 0 differ and every digit counts).
bool same(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

io::Session rich_session() {
    io::Session s;
    SceneSpec& p = s.spec;
    p.text = "Ünïcode \"quoted\" text\twith\nnewlines";
    p.tokens = {"a", "β", " c"};
    p.cross_text = "le chat";
    p.d_model = 8;
    p.heads = 2;
    p.kv_heads = 1;
    p.score = ScoreKind::Additive;
    p.sigma = 0.7f;
    p.scale = false;
    p.temperature = 0.1f;
    p.mask.kind = MaskKind::GlobalWindow;
    p.mask.window = 3;
    p.mask.global = {0, 2};
    p.mask.key_valid = {true, false, true};
    p.mask.custom = BoolMatrix::Identity(3, 3);
    p.mask.custom(0, 2) = true;
    p.positional = PositionalKind::Learned;
    p.seed = 18446744073709551557ull;  // needs all 64 bits
    Rng rng(5);
    Matrix e = rng.normal_matrix(3, 8) * 1e-3;
    e(0, 0) = 1.17549435e-38f;  // smallest normal
    e(0, 1) = 3.4028235e38f;    // largest float
    e(0, 2) = 1e-45f;           // subnormal
    e(0, 3) = -0.f;
    p.embeddings = std::make_shared<const Matrix>(e);
    MultiHeadWeights w;
    w.Wq = rng.normal_matrix(8, 8);
    w.Wk = rng.normal_matrix(8, 4);
    w.Wv = rng.normal_matrix(8, 4);
    w.Wo = rng.normal_matrix(8, 8);
    ScoreParams sp;
    sp.kind = ScoreKind::Additive;
    sp.Wa = rng.normal_matrix(4, 4);
    sp.Ua = rng.normal_matrix(4, 4);
    sp.va = rng.normal_matrix(4, 1).col(0);
    sp.sigma = 2.5f;
    w.head_scores = {sp, ScoreParams{}};
    p.weights = std::make_shared<const MultiHeadWeights>(w);
    p.component = 1;
    p.layer = 3;
    p.data_dk = 48.f;
    s.data_path = "/data/gpt2 small.npz";
    s.views = R"({"playground":{"points":[[0.1,0.2]]},"selection":{"head":1}})";
    return s;
}

TEST(Session, RoundTripsEveryParameterExactly) {
    const io::Session a = rich_session();
    const std::string text = io::session_to_json(a);
    const io::Session b = io::parse_session(text, "s.attnscope");
    const SceneSpec &p = a.spec, &q = b.spec;
    EXPECT_EQ(q.text, p.text);
    EXPECT_EQ(q.tokens, p.tokens);
    EXPECT_EQ(q.cross_text, p.cross_text);
    EXPECT_EQ(q.d_model, p.d_model);
    EXPECT_EQ(q.heads, p.heads);
    EXPECT_EQ(q.kv_heads, p.kv_heads);
    EXPECT_EQ(q.score, p.score);
    EXPECT_EQ(q.sigma, p.sigma);
    EXPECT_EQ(q.scale, p.scale);
    EXPECT_EQ(q.temperature, p.temperature);
    EXPECT_EQ(q.mask.kind, p.mask.kind);
    EXPECT_EQ(q.mask.window, p.mask.window);
    EXPECT_EQ(q.mask.global, p.mask.global);
    EXPECT_EQ(q.mask.key_valid, p.mask.key_valid);
    EXPECT_EQ(q.mask.custom, p.mask.custom);
    EXPECT_EQ(q.positional, p.positional);
    EXPECT_EQ(q.seed, p.seed);
    ASSERT_TRUE(q.embeddings);
    EXPECT_TRUE(same(*q.embeddings, *p.embeddings));
    ASSERT_TRUE(q.weights);
    EXPECT_TRUE(same(q.weights->Wq, p.weights->Wq));
    EXPECT_TRUE(same(q.weights->Wk, p.weights->Wk));
    EXPECT_TRUE(same(q.weights->Wv, p.weights->Wv));
    EXPECT_TRUE(same(q.weights->Wo, p.weights->Wo));
    ASSERT_EQ(q.weights->head_scores.size(), 2u);
    EXPECT_EQ(q.weights->head_scores[0].kind, ScoreKind::Additive);
    EXPECT_TRUE(same(q.weights->head_scores[0].Wa, p.weights->head_scores[0].Wa));
    EXPECT_TRUE(same(q.weights->head_scores[0].Ua, p.weights->head_scores[0].Ua));
    EXPECT_EQ(q.weights->head_scores[0].va, p.weights->head_scores[0].va);
    EXPECT_EQ(q.weights->head_scores[0].sigma, 2.5f);
    EXPECT_EQ(q.component, 1);
    EXPECT_EQ(q.layer, 3);
    EXPECT_EQ(q.data_dk, 48.f);
    EXPECT_FALSE(q.data);
    EXPECT_EQ(b.data_path, a.data_path);
    EXPECT_EQ(b.views, R"({"playground":{"points":[[0.1,0.2]]},"selection":{"head":1}})");
    EXPECT_EQ(io::session_to_json(b), text) << "a second round trip changes nothing";
}

TEST(Session, RandomFloatsSurviveTheShortestDecimalForm) {
    io::Session s;
    Rng rng(99);
    Matrix m(50, 40);
    for (Index i = 0; i < m.size(); ++i) {
        const double e = rng.uniform() * 80 - 43;  // 1e-43 … 1e37: subnormals to near max
        m.data()[i] = static_cast<float>((rng.uniform() - 0.5) * std::pow(10.0, e));
    }
    s.spec.embeddings = std::make_shared<const Matrix>(m);
    const io::Session b = io::parse_session(io::session_to_json(s), "r.attnscope");
    EXPECT_TRUE(same(*b.spec.embeddings, m));
}

TEST(Session, DefaultSceneFileStartsWithFormatAndVersionAndSavesAtomically) {
    io_test::TempDir dir;
    io::Session s;
    const std::string path = dir.file("default.attnscope");
    io::save_session(path, s);
    const io::Loaded l = io::load_any(path);
    ASSERT_TRUE(std::holds_alternative<io::Session>(l));
    const auto& b = std::get<io::Session>(l);
    EXPECT_EQ(b.spec.text, kDefaultSentence);
    EXPECT_FALSE(b.spec.embeddings);
    EXPECT_FALSE(b.spec.weights);
    EXPECT_TRUE(b.data_path.empty());
    const std::string text = io::session_to_json(s);
    EXPECT_EQ(text.rfind("{\n  \"format\": \"attnscope-session\",\n  \"version\": 1,\n", 0), 0u)
        << text.substr(0, 80);
    EXPECT_TRUE(io::looks_like_session(text));
    // Also recognised with a .json extension.
    io_test::write_text(dir.file("s.json"), text);
    EXPECT_EQ(io::detect_format(dir.file("s.json")), io::FileKind::Session);
}

TEST(Session, DataSourceDefaultsToTheLoadedFile) {
    io::Session s;
    auto data = std::make_shared<AttentionData>();
    data->source = "/tmp/x.npz";
    s.spec.data = data;
    const io::Session b = io::parse_session(io::session_to_json(s), "d.attnscope");
    EXPECT_EQ(b.data_path, "/tmp/x.npz");
}

TEST(Session, BadViewsAndNewerVersionsExplainThemselves) {
    io::Session s;
    s.views = "[1, 2]";
    EXPECT_THROW(io::session_to_json(s), FormatError);
    s.views = "{oops";
    EXPECT_THROW(io::session_to_json(s), FormatError);
    EXPECT_EQ(io_test::error_of([] {
                  io::parse_session(R"({"format": "attnscope-session", "version": 7, "scene": {}})",
                                    "n.attnscope");
              }),
              "n.attnscope: session version 7 is newer than this AttnScope reads (up to version "
              "1); please update AttnScope");
}

}  // namespace

namespace {

TEST(Session, CommittedVersionOneFilesReadAndWriteByteIdentically) {
    for (const char* f : {"default.attnscope", "explicit_weights.attnscope",
                          "loaded_gpt2.attnscope", "embedded_pair.attnscope"}) {
        const std::string path = io_test::data(std::string("sessions/") + f);
        std::ifstream in(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        EXPECT_EQ(attn::io::session_to_json(attn::io::load_session(path)), text) << f;
    }
}

TEST(Session, RelativeDataPathsFollowTheSessionFileAndLoad) {
    const std::string path = io_test::data("sessions/loaded_gpt2.attnscope");
    const attn::io::Session s = attn::io::load_session(path);
    EXPECT_EQ(s.spec.layer, 11);
    EXPECT_FALSE(s.spec.scale);
    const std::string data = attn::io::resolved_data_path(path, s);
    EXPECT_EQ(data.rfind(ATTN_TEST_DATA_DIR, 0), 0u);
    const attn::AttentionData d = attn::io::load_attention(data);
    EXPECT_EQ(d.components.size(), 2u);
    attn::io::Session abs;
    abs.data_path = "/abs.npy";
    EXPECT_EQ(attn::io::resolved_data_path("/x/s.attnscope", abs), "/abs.npy");
}

}  // namespace
