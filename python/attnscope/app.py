"""Finding the ``attnscope`` program, opening files in its window, and headless rendering."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from ._output import check_input
from .files import PathLike, save, scratch_folder

#: How long ``show`` waits for a new window to fail at start-up (no display, bad file) before
#: leaving it running; a hand-over to a running window ends well within it.
START_WAIT_S = 1.0

_CLONE = Path(__file__).resolve().parent.parent.parent
#: Windows this module started: kept so that Python does not warn that they still run.
_windows: List[subprocess.Popen] = []


def find_app() -> str:
    """The ``attnscope`` executable: $ATTNSCOPE_BIN, else ``attnscope`` on PATH, else the build
    of the clone this module sits in (build/release/bin or build/release/app).

    Raises:
        FileNotFoundError: naming every place that was tried.
    """
    given = os.environ.get("ATTNSCOPE_BIN")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise FileNotFoundError(f"ATTNSCOPE_BIN={given} is not an executable file")
    found = shutil.which("attnscope")
    if found:
        return found
    tried = [_CLONE / "build" / "release" / "bin" / "attnscope",
             _CLONE / "build" / "release" / "app" / "attnscope"]
    for candidate in tried:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise FileNotFoundError(
        "cannot find the attnscope program: set ATTNSCOPE_BIN, put attnscope on PATH, or build "
        f"it in this clone (scripts/run.sh); tried {', '.join(str(t) for t in tried)}")


def _as_file(path_or_arrays: Any, **arrays: Any) -> str:
    """A path as given (checked to be a readable regular file, so that nothing starts for a
    file that is not there); arrays (a mapping of ``save`` arguments, or an attention with keyword
    arrays) saved first to a new scratch file."""
    if isinstance(path_or_arrays, (str, os.PathLike)):
        if arrays:
            raise ValueError("pass either a file or arrays, not both")
        return check_input(os.path.abspath(os.fspath(path_or_arrays)))
    target = os.path.join(scratch_folder(), "attention.npz")
    if isinstance(path_or_arrays, Mapping):
        return save(target, **dict(path_or_arrays), **arrays)
    if path_or_arrays is None:
        return save(target, **arrays)
    return save(target, path_or_arrays, **arrays)


def open_in_app(path: PathLike, new_window: bool = False) -> str:
    """Opens ``path`` in AttnScope: in this user's running window when there is one (the second
    ``attnscope FILE`` hands it over and exits), else in a new window left running. Returns the
    path.

    Raises:
        RuntimeError: the program failed at once (its message included).
    """
    path = os.path.abspath(os.fspath(path))
    command = [find_app()] + (["--new-window"] if new_window else []) + [path]
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=err, start_new_session=True, close_fds=True)
        try:
            code = process.wait(timeout=START_WAIT_S)
        except subprocess.TimeoutExpired:
            _windows.append(process)
            return path  # a new window: it stays open after this process moves on
        err.seek(0)
        message = err.read().decode("utf-8", "replace").strip()
    if code != 0:
        raise RuntimeError(f"attnscope could not open {path} (exit {code}): {message}")
    return path


def show(path_or_arrays: Any = None, new_window: bool = False, **arrays: Any) -> str:
    """Opens a file, or arrays, in AttnScope and returns the file's path.

    ``show("run.npz")`` opens a file AttnScope reads (.npz, .npy, BertViz/CircuitsVis .json, a
    session); ``show({"attention": att, "tokens": toks})`` or ``show(attention=att,
    tokens=toks)`` saves the arrays with :func:`save` first. A running AttnScope window of this
    user takes the file (one window for every open); ``new_window=True`` starts another.

    Raises:
        FileNotFoundError: the file does not exist (nothing is started).
        ValueError: it is a folder, FIFO, device or socket; or the arrays are refused by save.
        PermissionError: it cannot be read.
        RuntimeError: the program failed at once (its message included).
    """
    return open_in_app(_as_file(path_or_arrays, **arrays), new_window=new_window)


def render(path_or_arrays: Any = None, view: str = "heads", out: Optional[PathLike] = None, *,
           layer: Optional[int] = None, head: Optional[int] = None,
           query: Optional[int] = None, component: Optional[Union[int, str]] = None,
           size: Optional[Tuple[int, int]] = None, dpi: Optional[int] = None,
           colormap: Optional[str] = None, extra_args: Sequence[str] = (),
           **arrays: Any) -> Any:
    """Draws a view headless with ``attnscope render`` (no window, no display needed).

    Args:
        path_or_arrays: a file, or arrays as for :func:`show`.
        view: heads, model, lines, tokens, neuron, census, rollout, qk, playground or
            ``lens:NAME``.
        out: the figure (.png, .svg or .pdf); default a new PNG in a scratch folder.
        layer, head, query, component, size, dpi, colormap: as ``attnscope render``'s options.
        extra_args: further command-line options (scene options such as ``--mask causal``).

    Returns:
        ``IPython.display.Image`` of a PNG when IPython is importable (a notebook shows it),
        else the output path.

    Raises:
        FileNotFoundError, ValueError, PermissionError: as :func:`show`, before anything runs.
        RuntimeError: attnscope refused (its message, naming the problem, is included).
    """
    source = _as_file(path_or_arrays, **arrays)
    if out is None:
        out = os.path.join(scratch_folder(), f"{view.replace(':', '-')}.png")
    out = os.path.abspath(os.fspath(out))
    command: List[str] = [find_app(), "render", source, "--view", view, "-o", out]
    for flag, value in (("--layer", layer), ("--head", head), ("--query", query),
                        ("--component", component), ("--dpi", dpi),
                        ("--colormap", colormap)):
        if value is not None:
            command += [flag, str(value)]
    if size is not None:
        command += ["--size", f"{int(size[0])}x{int(size[1])}"]
    command += list(extra_args)
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip() or f"attnscope render exited {result.returncode}")
    if out.lower().endswith(".png"):
        try:
            from IPython.display import Image  # type: ignore[import-not-found]
        except ImportError:
            return out
        return Image(filename=out)
    return out
