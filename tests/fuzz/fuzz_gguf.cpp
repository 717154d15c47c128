// libFuzzer harness: GGUF files (header, metadata, tensor table, every tensor decoded), and the
// same file opened as a model (config from the metadata, tensors by name, embedded tokenizer).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "attn/models/families.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // GgufFile maps a file: the input becomes one in memory, opened by its /proc path.
    const int fd = memfd_create("fuzz.gguf", 0);
    if (fd < 0) return 0;
    if (size > 0 && write(fd, data, size) != ssize_t(size)) {
        close(fd);
        return 0;
    }
    try {
        const attn::model::GgufFile file("/proc/self/fd/" + std::to_string(fd));
        for (const auto& t : file.tensors())
            if (t.count <= (std::uint64_t(1) << 22)) (void)file.floats(t);
    } catch (const attn::Error&) {
    }
    try {
        (void)attn::model::open_folder("/proc/self/fd/" + std::to_string(fd));
    } catch (const attn::Error&) {
    }
    close(fd);
    return 0;
}
