// AttnScope — the one place QCustomPlot is included. GPL-3.0-or-later.
//
// qcustomplot.h uses the bare Qt keywords (signals, slots, emit, foreach), which our strict
// QT_NO_KEYWORDS build does not define. Map them to the Q_ macros just for this header, then
// take them away again so our own code cannot use them by accident. Include this file, never
// <qcustomplot.h> directly.
#pragma once

#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
#else
#include <qcustomplot.h>
#endif
