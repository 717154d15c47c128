// AttnScope — merge keys of the controls' undo commands. GPL-3.0-or-later.
#pragma once

/// One id per continuous control: consecutive edits of the same control (a slider drag, typing)
/// merge into one undo step.
enum ControlId : int {
    kTemperatureControl = 1,
    kWindowControl,
    kSeedControl,
    kDModelControl,
    kSigmaControl,
    kTextControl,
    kPaddingControl,
    kGlobalControl,
};
