// AttnScope — File ▸ Examples: real model attention shipped inside the program (Qt resources
// built from tests/data/real). GPL-3.0-or-later; each example keeps its own licence.
#pragma once

#include <QList>
#include <QString>

namespace fileio {

/// One example file: its menu text, the resource it lives in and where it came from.
struct Example {
    QString title;     ///< menu text
    QString fileName;  ///< the file's own name (the window title shows it)
    QString source;    ///< provenance and licence, for the tooltip and Help ▸ About
};

/// Every example, in menu order.
const QList<Example>& examples();

/// The resource path of an example (":/examples/NAME").
QString exampleResource(const Example& example);

/// Copies the example out of the program into the user's cache folder (once; again when the
/// copy differs in size) so that it opens like any file — memory-mapped .npy/.npz included.
/// Returns the path, or "" and *error when the cache folder cannot be written.
QString materializeExample(const Example& example, QString* error);

/// The licence notices of the examples, as HTML for Help ▸ About.
QString examplesNoticeHtml();

}  // namespace fileio
