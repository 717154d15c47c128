// AttnScope core — attention masks. GPL-3.0-or-later.
#include "attn/attention/mask.hpp"

#include <algorithm>
#include <string>

#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn {

bool MaskSpec::operator==(const MaskSpec& o) const {
    return kind == o.kind && window == o.window && global == o.global && key_valid == o.key_valid &&
           custom.rows() == o.custom.rows() && custom.cols() == o.custom.cols() &&
           (custom.size() == 0 || custom == o.custom);
}

BoolMatrix build_mask_block(const MaskSpec& spec, Index nq, Index nk, Index first, Index count,
                            Index c0, Index ncols) {
    if (nq < 0 || nk < 0)
        throw ArgumentError("build_mask: negative size " + detail::shape(nq, nk) + ".");
    if (first < 0 || count < 0 || first + count > nq)
        throw ArgumentError("build_mask: rows " + std::to_string(first) + ".." +
                            std::to_string(first + count) + " are outside the " +
                            std::to_string(nq) + " queries.");
    if (c0 < 0 || ncols < 0 || c0 + ncols > nk)
        throw ArgumentError("build_mask: columns " + std::to_string(c0) + ".." +
                            std::to_string(c0 + ncols) + " are outside the " + std::to_string(nk) +
                            " keys.");
    BoolMatrix m(count, ncols);
    // Bottom-right alignment: the last query sees the last key, as in a decoder with a KV cache.
    const Index offset = nk - nq;
    switch (spec.kind) {
        case MaskKind::None:
            m.setConstant(true);
            break;
        case MaskKind::Causal:
            for (Index r = 0; r < count; ++r)
                for (Index c = 0; c < ncols; ++c)
                    m(r, c) = c0 + c <= first + r + offset;
            break;
        case MaskKind::AntiCausal:
            for (Index r = 0; r < count; ++r)
                for (Index c = 0; c < ncols; ++c)
                    m(r, c) = c0 + c >= first + r;
            break;
        case MaskKind::Padding: {
            const Index given = static_cast<Index>(spec.key_valid.size());
            if (given > nk)
                throw ShapeError("Padding mask has " + std::to_string(given) +
                                 " key flags but there are only " + std::to_string(nk) + " keys.");
            for (Index c = 0; c < ncols; ++c) {
                const Index j = c0 + c;
                m.col(c).setConstant(j >= given || spec.key_valid[static_cast<std::size_t>(j)]);
            }
            break;
        }
        case MaskKind::SlidingWindow:
        case MaskKind::GlobalWindow: {
            if (spec.window < 0)
                throw ArgumentError("Window radius must be non-negative (got " +
                                    std::to_string(spec.window) + ").");
            for (Index r = 0; r < count; ++r) {
                const Index i = first + r;
                for (Index c = 0; c < ncols; ++c) {
                    const Index j = c0 + c;
                    m(r, c) = (i > j ? i - j : j - i) <= spec.window;
                }
            }
            if (spec.kind == MaskKind::GlobalWindow) {
                const Index n = std::max(nq, nk);
                for (const Index g : spec.global) {
                    if (g < 0 || g >= n)
                        throw ArgumentError("Global token index " + std::to_string(g) +
                                            " is out of range for " + std::to_string(nq) +
                                            " queries and " + std::to_string(nk) + " keys.");
                    // A global token sees every key and is seen by every query.
                    if (g >= first && g < first + count) m.row(g - first).setConstant(true);
                    if (g >= c0 && g < c0 + ncols) m.col(g - c0).setConstant(true);
                }
            }
            break;
        }
        case MaskKind::CausalWindow:
            if (spec.window < 1)
                throw ArgumentError("A causal window must hold at least one key (got " +
                                    std::to_string(spec.window) + ").");
            for (Index r = 0; r < count; ++r) {
                const Index last = first + r + offset;  // the query's own position among keys
                for (Index c = 0; c < ncols; ++c)
                    m(r, c) = c0 + c <= last && c0 + c > last - spec.window;
            }
            break;
        case MaskKind::Custom:
            if (spec.custom.rows() != nq || spec.custom.cols() != nk)
                throw ShapeError("Custom mask is " +
                                 detail::shape(spec.custom.rows(), spec.custom.cols()) +
                                 " but the scores are " + detail::shape(nq, nk) + ".");
            m = spec.custom.block(first, c0, count, ncols);
            break;
    }
    return m;
}

BoolMatrix build_mask_rows(const MaskSpec& spec, Index nq, Index nk, Index first, Index count) {
    return build_mask_block(spec, nq, nk, first, count, 0, std::max<Index>(nk, 0));
}

BoolMatrix build_mask(const MaskSpec& spec, Index nq, Index nk) {
    return build_mask_rows(spec, nq, nk, 0, std::max<Index>(nq, 0));
}

std::string_view to_string(MaskKind kind) {
    switch (kind) {
        case MaskKind::None:
            return "none";
        case MaskKind::Causal:
            return "causal";
        case MaskKind::AntiCausal:
            return "anti-causal";
        case MaskKind::Padding:
            return "padding";
        case MaskKind::SlidingWindow:
            return "window";
        case MaskKind::GlobalWindow:
            return "global";
        case MaskKind::Custom:
            return "custom";
        case MaskKind::CausalWindow:
            return "causal-window";
    }
    return "none";
}

MaskKind mask_kind_from_string(std::string_view name) {
    for (const MaskKind k : {MaskKind::None, MaskKind::Causal, MaskKind::AntiCausal,
                             MaskKind::Padding, MaskKind::SlidingWindow, MaskKind::GlobalWindow,
                             MaskKind::Custom, MaskKind::CausalWindow})
        if (to_string(k) == name) return k;
    throw ArgumentError(
        "Unknown mask kind \"" + std::string(name) +
        "\"; expected none, causal, anti-causal, padding, window, global, custom or "
        "causal-window.");
}

}  // namespace attn
