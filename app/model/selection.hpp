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
    bool sum = false;          ///< several queries: their weights summed (true) or averaged
    bool operator==(const Selection&) const = default;
    /// Every selected query: `queries` when several were picked, else {query} or {}.
    std::vector<int> selectedQueries() const {
        if (!queries.empty()) return queries;
        return query >= 0 ? std::vector<int>{query} : std::vector<int>{};
    }
    /// Ctrl/shift-click on query q: q joins the selected queries, or leaves them when it was
    /// one of several; the last one added is the primary query (the math panel's).
    Selection withQueryToggled(int q) const {
        Selection s = *this;
        std::vector<int> qs = selectedQueries();
        const bool had = std::find(qs.begin(), qs.end(), q) != qs.end();
        if (had && qs.size() > 1)
            std::erase(qs, q);
        else if (!had)
            qs.push_back(q);
        std::sort(qs.begin(), qs.end());
        s.queries = qs.size() > 1 ? qs : std::vector<int>{};
        s.query = had ? qs.back() : q;
        return s;
    }
};
