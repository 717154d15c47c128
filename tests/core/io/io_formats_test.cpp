// The table of formats: every format it lists opens a file of its own through load_any, the
// lists made from it (dialog filter, --help, man page) hold every format, a file is known by its
// opening bytes before its name, and a file of no format is refused naming file, size and the
// formats. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../io_test_util.hpp"
#include "attn/io/formats.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

const std::vector<float> kWeights = {0.25f, 0.75f, 1.f, 0.f, 0.5f, 0.5f, 0.f, 1.f};  // 2×2×2

/// Writes one small file of each format's kind in dir and returns its path.
std::map<io::FileKind, std::string> fixtures(const io_test::TempDir& dir) {
    const std::uint64_t shape[] = {2, 2, 2};
    std::map<io::FileKind, std::string> out;
    out[io::FileKind::Npy] = dir.file("w.npy");
    io::write_npy(out[io::FileKind::Npy], kWeights, shape);
    out[io::FileKind::Npz] = dir.file("w.npz");
    io::write_npz(out[io::FileKind::Npz], {{"attention", io::npy_bytes(kWeights, shape)},
                                           {"tokens", io::npy_string_bytes({"a", "b"})}});
    out[io::FileKind::AttentionJson] = dir.file("w.json");
    std::filesystem::copy_file(io_test::real("bertviz_gpt2_headview.json"),
                               out[io::FileKind::AttentionJson]);
    out[io::FileKind::Tokens] = dir.file("t.txt");
    io_test::write_text(out[io::FileKind::Tokens], "the\ncat\nsat\n");
    out[io::FileKind::Session] = dir.file("s.attnscope");
    io::Session s;
    s.spec.text = "formats round trip";
    s.spec.heads = 2;
    io::save_session(out[io::FileKind::Session], s);
    return out;
}

/// What the file at path holds, checked against what fixtures() wrote.
void expectFixture(io::FileKind kind, const std::string& path) {
    SCOPED_TRACE(path);
    const io::Loaded l = io::load_any(path);
    switch (kind) {
        case io::FileKind::Npy:
        case io::FileKind::Npz: {
            ASSERT_TRUE(std::holds_alternative<AttentionData>(l));
            const auto& c = std::get<AttentionData>(l).components.at(0);
            EXPECT_EQ(c.heads, 2);
            EXPECT_EQ(c.at(0, 0)(0, 1), 0.75f);
            EXPECT_EQ(c.at(0, 1)(1, 1), 1.f);
            break;
        }
        case io::FileKind::AttentionJson: {
            ASSERT_TRUE(std::holds_alternative<AttentionData>(l));
            const AttentionData& d = std::get<AttentionData>(l);
            const AttentionData ref =
                io::load_attention(io_test::real("bertviz_gpt2_headview.json"));
            EXPECT_EQ(d.components.at(0).heads, ref.components.at(0).heads);
            EXPECT_EQ(d.components.at(0).at(0, 0)(1, 0), ref.components.at(0).at(0, 0)(1, 0));
            break;
        }
        case io::FileKind::Tokens:
            ASSERT_TRUE(std::holds_alternative<io::TokenText>(l));
            EXPECT_EQ(std::get<io::TokenText>(l).tokens,
                      (std::vector<std::string>{"the", "cat", "sat"}));
            break;
        case io::FileKind::Session:
            ASSERT_TRUE(std::holds_alternative<io::Session>(l));
            EXPECT_EQ(std::get<io::Session>(l).spec.text, "formats round trip");
            EXPECT_EQ(std::get<io::Session>(l).spec.heads, 2);
            break;
    }
}

TEST(Formats, EveryRegisteredFormatOpensItsFixtureThroughLoadAny) {
    io_test::TempDir dir;
    const auto files = fixtures(dir);
    ASSERT_EQ(io::formats().size(), 5u);
    for (const io::Format& f : io::formats()) {
        SCOPED_TRACE(f.id);
        ASSERT_TRUE(files.contains(f.kind)) << "a registered format without a fixture";
        EXPECT_EQ(&io::detect(files.at(f.kind)), &f);
        EXPECT_EQ(io::detect_format(files.at(f.kind)), f.kind);
        EXPECT_STREQ(io::to_string(f.kind), f.id);
        expectFixture(f.kind, files.at(f.kind));
        // load_attention takes exactly the formats that hold attention.
        if (f.attention)
            EXPECT_FALSE(io::load_attention(files.at(f.kind)).components.empty());
        else
            EXPECT_NE(io_test::error_of([&] {
                          io::load_attention(files.at(f.kind));
                      }).find("not attention data"),
                      std::string::npos);
    }
}

TEST(Formats, TheOpeningBytesWinOverAWrongExtension) {
    io_test::TempDir dir;
    const auto files = fixtures(dir);
    const std::pair<io::FileKind, const char*> renamed[] = {
        {io::FileKind::Npy, "really_npy.txt"},
        {io::FileKind::Npz, "really_npz.json"},
        {io::FileKind::Session, "really_session.txt"},
        {io::FileKind::Npy, "really_npy.npz"},
    };
    for (const auto& [kind, name] : renamed) {
        std::filesystem::copy_file(files.at(kind), dir.file(name));
        EXPECT_EQ(io::detect_format(dir.file(name)), kind) << name;
        expectFixture(kind, dir.file(name));
    }
    // No magic: the name decides, then a '{' makes JSON of a file with any other name.
    io_test::write_text(dir.file("braces.txt"), "{not\ntokens\n");
    EXPECT_EQ(io::detect_format(dir.file("braces.txt")), io::FileKind::Tokens);
    std::filesystem::copy_file(files.at(io::FileKind::AttentionJson), dir.file("view.data"));
    expectFixture(io::FileKind::AttentionJson, dir.file("view.data"));
}

TEST(Formats, AFileOfNoFormatIsRefusedNamingFileSizeAndTheFormats) {
    io_test::TempDir dir;
    io_test::write_text(dir.file("mystery.bin"), std::string(1500, 'x'));
    const std::string e = io_test::error_of([&] { io::load_any(dir.file("mystery.bin")); });
    EXPECT_EQ(e.rfind("mystery.bin: unknown format (1.5 kB;", 0), 0u) << e;
    for (const io::Format& f : io::formats()) {
        EXPECT_NE(e.find(f.name), std::string::npos) << e;
        for (const char* x : f.extensions)
            EXPECT_NE(e.find(x), std::string::npos) << e;
    }
}

TEST(Formats, TheDialogFilterListsEveryFormatOnce) {
    EXPECT_EQ(io::open_dialog_filter(),
              "Everything AttnScope opens (*.npy *.npz *.json *.txt *.attnscope);;"
              "NumPy array (*.npy);;NumPy archive (*.npz);;BertViz / CircuitsVis JSON (*.json);;"
              "Token text (*.txt);;AttnScope session (*.attnscope *.json);;All files (*)");
}

TEST(Formats, HelpListsEveryFormatOnALine) {
    std::istringstream help(io::help_format_list());
    std::string line;
    std::size_t i = 0;
    while (std::getline(help, line)) {
        ASSERT_LT(i, io::formats().size());
        EXPECT_EQ(line.rfind("  " + std::string(io::formats()[i].name) + " (", 0), 0u) << line;
        ++i;
    }
    EXPECT_EQ(i, io::formats().size());
}

/// The installed man page's list is the registry's: the lines between its ".nf" and ".fi"
/// marked as the formats are exactly man_format_list() (paste the expected text there).
TEST(Formats, ManPageListsEveryFormat) {
    std::ifstream in(ATTN_MAN_PAGE);
    ASSERT_TRUE(in.good()) << ATTN_MAN_PAGE;
    std::string line, block;
    bool inside = false, found = false;
    while (std::getline(in, line)) {
        if (line.starts_with(".nf") && line.find("formats.cpp") != std::string::npos) {
            inside = found = true;
        } else if (inside && line.starts_with(".fi")) {
            inside = false;
        } else if (inside) {
            block += line + "\n";
        }
    }
    ASSERT_TRUE(found) << ATTN_MAN_PAGE << " has no list of formats";
    EXPECT_EQ(block, io::man_format_list())
        << "resources/man/attnscope.1's formats differ from the registry; they should read:\n"
        << io::man_format_list();
}

}  // namespace
