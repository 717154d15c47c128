// AttnScope — what the user reads of an exception. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <exception>

/// E's message for the user: AttnScope's own errors (attn::Error) as they are; anything else —
/// a standard library's text such as vector::_M_range_check — as "SUBJECT: an unexpected
/// error (please report it)", so no library internals reach a message.
QString errorText(const std::exception& e, const QString& subject);
