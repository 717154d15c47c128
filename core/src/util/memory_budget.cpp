// AttnScope core — the memory budget. GPL-3.0-or-later.
#include "attn/util/memory_budget.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "attn/util/error.hpp"

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
    const auto refuse = [&](const std::string& why) {
        throw ArgumentError("\"" + s + "\" is not a memory size (" + why +
                            "; a positive decimal number with an optional unit: 12G, 512M, "
                            "1.5GiB).");
    };
    // Decimal digits and at most one point only: std::stod would also take "0x10", "1e3",
    // "inf" and "nan", none of which a user means as a size.
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    const std::size_t number_begin = i;
    bool point = false, digits = false;
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (std::isdigit(c)) {
            digits = true;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!digits) refuse("no decimal number");
    const double value = std::strtod(s.substr(number_begin, i - number_begin).c_str(), nullptr);
    std::string unit;
    for (; i < s.size(); ++i)
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
    if (scale < 0) refuse("unknown unit \"" + unit + "\"");
    // Less than one byte would round to 0, which set_memory_budget takes as "the default".
    if (!(value * scale >= 1)) refuse("less than one byte");
    if (value * scale >= 1.8e19) refuse("more than 16 EiB");
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
    // 10 % of the disk (at least 1 GB) stays free: a full disk stalls a desktop. A small file
    // cannot fill a disk, though: it keeps ten times its own size free, no more.
    const double full = std::max(1e9, 0.1 * space.total);
    const double reserve = std::min(full, 10 * bytes);
    const double usable = space.free - reserve;
    if (bytes <= usable) return;
    // The message states the rule that applied here: the 10 %, the 1 GB floor or the file's.
    const std::string rule = reserve < full ? "ten times the " + format_bytes(bytes) + " written"
                             : 0.1 * space.total >= 1e9
                                 ? "10 % of the " + format_bytes(space.total) + " disk"
                                 : "at least 1 GB of any disk";
    // What is missing: the file and the reserve beyond what is free.
    throw ResourceError(what + " = " + format_bytes(bytes) + ", more than the " +
                        format_bytes(std::max(0.0, usable)) + " that can be written to " +
                        dir.string() + " (" + format_bytes(space.free) + " free, " +
                        format_bytes(reserve) + " kept free: " + rule + "; " +
                        format_bytes(bytes + reserve - space.free) + " short); " + way_out);
}

}  // namespace attn
