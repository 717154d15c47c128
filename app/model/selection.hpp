// AttnScope — the selected query, key and head that every view follows. GPL-3.0-or-later.
#pragma once

#include <algorithm>
#include <vector>

/// Which query / key / head is selected; every view follows it.
struct Selection {
    Selection() = default;
    Selection(int q, int k, int h) : query(q), key(k), head(h) {}
    int query = -1;            ///< row, −1 = none
    int key = -1;              ///< column, −1 = none
    int head = 0;              ///< focused head
    std::vector<int> queries;  ///< several queries selected at once (shift/ctrl-click), else empty
    std::vector<int> keys;     ///< several keys selected at once (shift/ctrl-click), else empty
    bool sum = false;          ///< several queries or keys: weights summed (true) or averaged
    bool operator==(const Selection&) const = default;
    /// Every selected query: `queries` when several were picked, else {query} or {}.
    std::vector<int> selectedQueries() const {
        if (!queries.empty()) return queries;
        return query >= 0 ? std::vector<int>{query} : std::vector<int>{};
    }
    /// Every selected key: `keys` when several were picked, else {key} or {}.
    std::vector<int> selectedKeys() const {
        if (!keys.empty()) return keys;
        return key >= 0 ? std::vector<int>{key} : std::vector<int>{};
    }
    /// Ctrl/shift-click on key k: as withQueryToggled, for the keys.
    Selection withKeyToggled(int k) const {
        Selection s = *this;
        std::vector<int> ks = selectedKeys();
        s.key = toggled(ks, k);
        s.keys = ks.size() > 1 ? ks : std::vector<int>{};
        return s;
    }
    /// Ctrl/shift-click on query q: q joins the selected queries, or leaves them when it was
    /// one of several; the last one added is the primary query (the math panel's).
    Selection withQueryToggled(int q) const {
        Selection s = *this;
        std::vector<int> qs = selectedQueries();
        s.query = toggled(qs, q);
        s.queries = qs.size() > 1 ? qs : std::vector<int>{};
        return s;
    }

    /// Shift-click on query q: every query from the primary one to q (both included), q now
    /// the primary one; with none selected, q alone.
    Selection withQueryRange(int q) const {
        Selection s = *this;
        s.queries = range(query, q);
        s.query = q;
        return s;
    }
    /// Shift-click on key k: as withQueryRange, for the keys.
    Selection withKeyRange(int k) const {
        Selection s = *this;
        s.keys = range(key, k);
        s.key = k;
        return s;
    }

  private:
    /// from … to in increasing order, or {} when that is one item (or from is none).
    static std::vector<int> range(int from, int to) {
        if (from < 0 || from == to) return {};
        std::vector<int> r;
        for (int i = std::min(from, to); i <= std::max(from, to); ++i)
            r.push_back(i);
        return r;
    }
    /// Adds t to (or takes it from, unless it is the only one) the sorted list; returns the
    /// primary one: t when added, else the last left.
    static int toggled(std::vector<int>& list, int t) {
        const bool had = std::find(list.begin(), list.end(), t) != list.end();
        if (had && list.size() > 1)
            std::erase(list, t);
        else if (!had)
            list.push_back(t);
        std::sort(list.begin(), list.end());
        return had ? list.back() : t;
    }
};
