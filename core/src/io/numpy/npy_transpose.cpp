// AttnScope core — a Fortran-order array turned into rows once: copied tile by tile to a
// temporary float32 C-order file, so each row is one contiguous read afterwards instead of a
// gather of one element per page. GPL-3.0-or-later.
#include <algorithm>
#include <bit>
#include <vector>

#include "../../files/io_util.hpp"
#include "../../files/temp_file.hpp"
#include "npy_rows.hpp"

namespace attn::io::detail {

MappedArray transposed_to_rows(const MappedArray& a, Progress* progress) {
    const NpyHeader& h = a.header;
    // Padded to [L,H,Nq,Nk]. In Fortran order element (l,h,i,j) lies at l + L·(h + H·(i + Nq·j)):
    // a matrix of Nk lines (j) of M = L·H·Nq elements, whose element r belongs to C row
    // (l·H + h)·Nq + i. Tiles of T elements × J lines are read line by line (contiguous),
    // transposed in memory and written as T row pieces of J floats.
    std::vector<std::uint64_t> s(4 - h.shape.size(), 1);
    s.insert(s.end(), h.shape.begin(), h.shape.end());
    const std::uint64_t L = s[0], H = s[1], nq = s[2], nk = s[3], M = L * H * nq;
    // At least a page of elements per line read, so each page of the input is read once.
    const std::uint64_t T = std::max<std::uint64_t>(1024, 4096 / h.item_size), J = 1024;
    std::vector<float> in(static_cast<std::size_t>(std::min(T, M) * std::min(J, nk)));
    std::vector<float> out(in.size());
    const std::byte* data = a.file->bytes().data() + a.begin + h.data_offset;
    const std::string what = a.name + " (Fortran order) transposed to rows in a temporary file";
    auto file = mapped_temp_file(M * nk * sizeof(float), what, [&](int fd) {
        for (std::uint64_t r0 = 0; r0 < M; r0 += T) {
            const std::uint64_t tn = std::min(T, M - r0);
            for (std::uint64_t j0 = 0; j0 < nk; j0 += J) {
                const std::uint64_t jn = std::min(J, nk - j0);
                for (std::uint64_t j = 0; j < jn; ++j) {
                    const std::size_t at =
                        static_cast<std::size_t>(((j0 + j) * M + r0) * h.item_size);
                    decode_floats(data + at, h, static_cast<std::size_t>(tn), in.data() + j * tn);
                    a.file->release_touched(a.begin + h.data_offset + at,
                                            static_cast<std::size_t>(tn * h.item_size));
                }
                constexpr std::uint64_t B = 32;  // the in-memory transpose in cache-sized blocks
                for (std::uint64_t t0 = 0; t0 < tn; t0 += B)
                    for (std::uint64_t k0 = 0; k0 < jn; k0 += B)
                        for (std::uint64_t t = t0; t < std::min(tn, t0 + B); ++t)
                            for (std::uint64_t k = k0; k < std::min(jn, k0 + B); ++k)
                                out[t * jn + k] = in[k * tn + t];
                for (std::uint64_t t = 0; t < tn; ++t) {
                    const std::uint64_t r = r0 + t, l = r % L, hd = r / L % H, i = r / (L * H);
                    const std::uint64_t row = (l * H + hd) * nq + i;
                    write_at(fd, out.data() + t * jn, jn * sizeof(float),
                             (row * nk + j0) * sizeof(float), what);
                }
            }
            report(progress, static_cast<double>(r0 + tn) / static_cast<double>(M));
        }
    });
    MappedArray rows;
    rows.file = std::move(file);
    rows.header.type = NpyType::Float32;
    rows.header.item_size = sizeof(float);
    rows.header.big_endian = std::endian::native == std::endian::big;  // written as in memory
    rows.header.shape = h.shape;
    rows.header.data_offset = 0;
    rows.name = a.name;
    return rows;
}

}  // namespace attn::io::detail
