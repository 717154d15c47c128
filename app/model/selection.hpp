// AttnScope — the selected query, key and head that every view follows. GPL-3.0-or-later.
#pragma once

/// Which query / key / head is selected; every view follows it.
struct Selection {
    int query = -1;  ///< row, −1 = none
    int key = -1;    ///< column, −1 = none
    int head = 0;    ///< focused head
    bool operator==(const Selection&) const = default;
};
