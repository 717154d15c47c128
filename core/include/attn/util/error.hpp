// AttnScope core — typed errors. GPL-3.0-or-later.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

/// Base of every error core throws; what() is a complete, user-readable sentence.
class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Matrix shapes that do not fit together (e.g. Q has 4 columns, K has 3).
class ShapeError : public Error {
  public:
    using Error::Error;
};

/// An argument outside its domain (h not dividing d_model, negative temperature, empty input…).
class ArgumentError : public Error {
  public:
    using Error::Error;
};

/// NaN or infinite values where finite numbers are required.
class NonFiniteError : public Error {
  public:
    using Error::Error;
};

/// A file or payload that does not follow its format; the message names the file and the place.
class FormatError : public Error {
  public:
    using Error::Error;
};

/// A request for more memory or disk than allowed (the memory budget, free disk space), refused
/// before anything was allocated; the message names the size and the way out.
class ResourceError : public Error {
  public:
    using Error::Error;
};

/// The operation was cancelled through a Progress callback.
class Cancelled : public Error {
  public:
    Cancelled() : Error("cancelled") {}
};

}  // namespace attn
