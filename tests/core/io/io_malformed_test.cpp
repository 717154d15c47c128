// The malformed corpus: every file in tests/core/data/malformed/expected.tsv is rejected with a
// FormatError that names the file and contains the expected text.
#include <gtest/gtest.h>

#include <fstream>

#include "../io_test_util.hpp"
#include "attn/io/json/tokens.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

struct Case {
    std::string file, expected;
};

std::vector<Case> corpus() {
    std::ifstream in(io_test::data("malformed/expected.tsv"));
    std::vector<Case> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        if (tab == std::string::npos) continue;
        out.push_back({line.substr(0, tab), line.substr(tab + 1)});
    }
    return out;
}

TEST(MalformedCorpus, HoldsAtLeastThirtyFiles) {
    EXPECT_GE(corpus().size(), 30u);
}

TEST(MalformedCorpus, EveryFileGivesItsMessage) {
    for (const Case& c : corpus()) {
        const std::string path = io_test::data("malformed/" + c.file);
        std::string msg;
        try {
            if (c.file.ends_with(".csv"))
                io::load_embeddings(path);
            else
                io::load_any(path);
            ADD_FAILURE() << c.file << ": loaded without error";
            continue;
        } catch (const FormatError& e) {
            msg = e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << c.file << ": not a FormatError: " << e.what();
            continue;
        }
        EXPECT_EQ(msg.rfind(c.file + ": ", 0), 0u) << c.file << " → " << msg;
        EXPECT_NE(msg.find(c.expected), std::string::npos)
            << c.file << "\n  message:  " << msg << "\n  expected: " << c.expected;
    }
}

}  // namespace
