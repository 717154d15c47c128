// AttnScope — the mouse wheel scrolls a page of controls rather than change the control under
// the pointer. GPL-3.0-or-later.
#pragma once

class QWidget;

/// Every slider, spin box and combo box in PAGE (a scrolling column of controls) changes with
/// the wheel only while it has the focus (a click or Tab gives it, the wheel no longer does);
/// otherwise a wheel turn over it goes on to the page, which scrolls. Calling it again for
/// controls added since is harmless.
void guardWheel(QWidget* page);
