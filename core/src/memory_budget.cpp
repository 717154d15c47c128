// AttnScope core — the memory budget. GPL-3.0-or-later.
#include "attn/memory_budget.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "attn/error.hpp"

namespace attn {

namespace {
std::atomic<std::uint64_t> g_budget{0};  // 0: the default

bool statvfs_space(const std::string& dir, DiskSpace& out) {
    struct statvfs fs {};
    if (statvfs(dir.c_str(), &fs) != 0) return false;
    out.free = double(fs.f_bavail) * double(fs.f_frsize);
    out.total = double(fs.f_blocks) * double(fs.f_frsize);
    return true;
}
std::atomic<DiskSpaceQuery> g_disk_space{nullptr};  // nullptr: statvfs
}  // namespace

void set_disk_space_query(DiskSpaceQuery query) {
    g_disk_space = query;
}

std::uint64_t physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0) return 0;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size);
}

std::uint64_t default_memory_budget() {
    std::uint64_t usable = physical_memory();
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        usable = usable == 0 ? limit.rlim_cur : std::min<std::uint64_t>(usable, limit.rlim_cur);
    // Half: the rest is the desktop's, the program's own code and the allocator's slack.
    return usable == 0 ? 2'000'000'000ull : usable / 2;
}

std::uint64_t memory_budget() {
    const std::uint64_t b = g_budget.load();
    return b != 0 ? b : default_memory_budget();
}

void set_memory_budget(std::uint64_t bytes) {
    g_budget.store(bytes);
}

std::string format_bytes(double bytes) {
    static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    double v = std::max(0.0, bytes);
    while (v >= 1000 && u < 6)
        v /= 1000, ++u;
    char text[48];
    if (u == 0 || v >= 10)
        std::snprintf(text, sizeof text, "%.0f %s", v, units[u]);
    else
        std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
    if (!std::isfinite(bytes)) return "more than 1000 EB";
    return text;
}

std::uint64_t parse_bytes(std::string_view text) {
    const std::string s(text);
    std::size_t used = 0;
    double value = -1;
    try {
        value = std::stod(s, &used);
    } catch (const std::exception&) {
        value = -1;
    }
    std::string unit;
    for (std::size_t i = used; i < s.size(); ++i)
        if (!std::isspace(static_cast<unsigned char>(s[i])))
            unit += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    double scale = -1;
    if (unit.empty() || unit == "B") scale = 1;
    const char* prefixes = "KMGTP";
    for (int p = 0; p < 5; ++p) {
        const std::string k(1, prefixes[p]);
        const double dec = std::pow(1000.0, p + 1), bin = std::pow(1024.0, p + 1);
        if (unit == k || unit == k + "B") scale = dec;
        if (unit == k + "I" || unit == k + "IB") scale = bin;
    }
    if (!(value > 0) || scale < 0 || !std::isfinite(value * scale) || value * scale >= 1.8e19)
        throw ArgumentError("\"" + s +
                            "\" is not a memory size (a positive number with an optional unit: "
                            "12G, 512M, 1.5GiB).");
    return static_cast<std::uint64_t>(value * scale);
}

void require_memory(double bytes, const std::string& what, const std::string& way_out) {
    const auto budget = static_cast<double>(memory_budget());
    if (bytes <= budget) return;
    throw ResourceError(what + " = " + format_bytes(bytes) + ", more than the " +
                        format_bytes(budget) + " memory budget; " + way_out);
}

void require_disk(double bytes, const std::string& path, const std::string& what,
                  const std::string& way_out) {
    std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
    const DiskSpaceQuery query = g_disk_space.load();
    DiskSpace space;
    // Unknown: the write itself reports failure.
    if (!(query ? query : statvfs_space)(dir.string(), space)) return;
    // A pseudo file system (/proc, /sys) has no blocks: nothing to check, the write fails itself.
    if (space.total <= 0) return;
    // 10 % of the disk (at least 1 GB) stays free: a full disk stalls a desktop.
    const double usable = space.free - std::max(1e9, 0.1 * space.total);
    if (bytes <= usable) return;
    throw ResourceError(what + " = " + format_bytes(bytes) + ", more than the " +
                        format_bytes(std::max(0.0, usable)) + " that can be written to " +
                        dir.string() + " (" + format_bytes(space.free) +
                        " free, 10 % of the disk kept free; " +
                        format_bytes(bytes - std::max(0.0, usable)) + " short); " + way_out);
}

}  // namespace attn
