// AttnScope — a GPT-2 folder whose files are not regular files (a FIFO, a directory) is
// refused before anything is read from it, naming the file: opening a FIFO for reading would
// wait for a writer forever. The folder is gpt2_tiny.py's, in the Hugging Face layout.
// GPL-3.0-or-later.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "../io_test_util.hpp"
#include "attn/models/gpt2/model.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"

namespace {

namespace fs = std::filesystem;

/// A tiny GPT-2 folder written by gpt2_tiny.py into a fresh directory.
struct TinyFolder {
    io_test::TempDir dir;
    TinyFolder() {
        const std::string command =
            "/usr/bin/python3 " ATTN_GPT2_TINY " " + dir.path.string() + " 11 2 > /dev/null";
        EXPECT_EQ(std::system(command.c_str()), 0) << command;
    }
    /// Replaces NAME by a FIFO (or by a directory when fifo is false).
    void plant(const std::string& name, bool fifo) const {
        const fs::path p = dir.path / name;
        fs::remove(p);
        if (fifo)
            ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << p;
        else
            fs::create_directory(p);
    }
};

/// The FormatError message of opening the folder ("" and a failure when it opens).
std::string refusal(const TinyFolder& f) {
    try {
        attn::gpt2::open_folder(f.dir.path.string());
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    ADD_FAILURE() << "the folder opened";
    return {};
}

TEST(Gpt2Folder, TheTinyFolderOpens) {
    const TinyFolder f;
    const attn::model::ModelFolder m = attn::gpt2::open_folder(f.dir.path.string());
    EXPECT_EQ(m.model->info().layers, 2);
    EXPECT_EQ(m.model->info().family, "gpt2");
}

TEST(Gpt2Folder, AFifoOrADirectoryInPlaceOfAFileIsRefusedWithoutBlocking) {
    for (const bool fifo : {true, false}) {
        for (const std::string name :
             {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
            const TinyFolder f;
            f.plant(name, fifo);
            const std::string e = refusal(f);
            EXPECT_NE(e.find(name), std::string::npos) << e;
            const std::string kind = fifo ? "is a FIFO" : "is a directory";
            EXPECT_NE(e.find(kind + ", not a regular file"), std::string::npos) << e;
        }
    }
}

TEST(Gpt2Folder, TheCacheListSkipsAFifoConfigWithoutBlocking) {
    const TinyFolder f;
    const fs::path hub = f.dir.path / "hub";
    const fs::path good = hub / "models--tiny" / "snapshots" / "a";
    const fs::path fifo = hub / "models--fifo" / "snapshots" / "b";
    fs::create_directories(good);
    fs::create_directories(fifo);
    for (const char* name : {"config.json", "model.safetensors"})
        fs::copy_file(f.dir.path / name, good / name);
    fs::copy_file(f.dir.path / "model.safetensors", fifo / "model.safetensors");
    ASSERT_EQ(::mkfifo((fifo / "config.json").c_str(), 0600), 0);
    EXPECT_EQ(attn::model::find_cached_models(hub.string()),
              std::vector<std::string>{good.string()});
}

}  // namespace
