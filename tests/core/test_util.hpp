// Small helpers shared by the attention-math tests.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "attn/attention/mask.hpp"
#include "attn/util/random.hpp"

namespace testutil {

/// What COMMAND (run by the shell) writes to its standard output; empty when it cannot start.
inline std::string capture(const std::string& command) {
    std::string out;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    if (!pipe) return out;
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0;)
        out.append(buf.data(), n);
    return out;
}

/// Expects `stmt` to throw exactly type E with a message containing every given fragment.
#define EXPECT_THROW_MSG(stmt, E, ...)                                               \
    do {                                                                             \
        try {                                                                        \
            stmt;                                                                    \
            ADD_FAILURE() << "expected " #E " from " #stmt;                          \
        } catch (const E& e) {                                                       \
            const std::string msg = e.what();                                        \
            for (const char* frag : {__VA_ARGS__})                                   \
                EXPECT_NE(msg.find(frag), std::string::npos)                         \
                    << "message \"" << msg << "\" lacks \"" << frag << "\"";         \
        } catch (const std::exception& e) {                                          \
            ADD_FAILURE() << "expected " #E ", got another exception: " << e.what(); \
        }                                                                            \
    } while (0)

/// One mask spec of every kind, sized for nq × nk (random parts from rng).
inline std::vector<attn::MaskSpec> all_masks(attn::Index nq, attn::Index nk, attn::Rng& rng) {
    std::vector<attn::MaskSpec> out;
    for (auto kind : {attn::MaskKind::None, attn::MaskKind::Causal, attn::MaskKind::AntiCausal,
                      attn::MaskKind::Padding, attn::MaskKind::SlidingWindow,
                      attn::MaskKind::GlobalWindow, attn::MaskKind::Custom}) {
        attn::MaskSpec m;
        m.kind = kind;
        m.window = 1;
        if (kind == attn::MaskKind::Padding)
            for (attn::Index j = 0; j < nk; ++j)
                m.key_valid.push_back(rng.uniform() < 0.7);
        if (kind == attn::MaskKind::GlobalWindow) m.global = {0, std::max(nq, nk) - 1};
        if (kind == attn::MaskKind::Custom) {
            m.custom.resize(nq, nk);
            for (attn::Index i = 0; i < nq; ++i)
                for (attn::Index j = 0; j < nk; ++j)
                    m.custom(i, j) = rng.uniform() < 0.6;
        }
        out.push_back(m);
    }
    return out;
}

}  // namespace testutil
