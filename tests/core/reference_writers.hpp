// Test-only reference writers: the compute output held whole in memory, and a libzip-built
// .npz, against which core's one writer of each format (ResultStream, ZipWriter) is checked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/scene/scene.hpp"

namespace reference {

/// The arrays of one or more layers' results, stacked in memory (result_writer.hpp's layout).
attn::io::NpzMembers result_members(const std::vector<attn::SceneResult>& layers);
/// Members as a stored (or deflated) .npz archive, built by libzip (not by core's ZipWriter).
std::vector<std::byte> npz_bytes(const attn::io::NpzMembers& members, bool deflate = false);
/// Writes results through core's ResultStream in one go (.npz or .json by the extension).
void write_result(const std::string& path, const std::vector<attn::SceneResult>& layers);

}  // namespace reference
