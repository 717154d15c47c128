"""Writing and opening files by the program's own rules (core's attn::io::OutputFile and
check_output): an output is never written through a symbolic link, never replaces a folder, a
device, a FIFO or a socket, nor a read-only file; it goes to a new temporary file beside it,
created with O_CREAT|O_EXCL|O_NOFOLLOW, which takes the replaced file's permissions (a new file:
0666 less the umask, as open() gives) and is renamed over the path only when whole.

A hard-linked destination is replaced as the command line replaces it: the path names the new
file, and the other links keep the old contents (nothing is written into a file another name
shares).
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import BinaryIO, Callable, Optional

#: The suffix of the temporary files, the command line's (its stale-file sweep knows them).
TEMP_SUFFIX = ".attnscope-tmp"
_NAME_IN_TEMP = 200  # leaves room below NAME_MAX (255) for the rest, as the program does


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_output(path: str) -> Optional[os.stat_result]:
    """The destination's lstat when ``path`` may be replaced, None when it is new.

    Raises:
        FileNotFoundError: its folder does not exist.
        ValueError: it is a symbolic link, a folder, a device, a FIFO or a socket, or it is
            read-only (by its mode bits, so that root is refused too); the message names it.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"{path}: the folder {folder} does not exist") from None
        return None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError(f"{path}: is a symbolic link (to {os.readlink(path)}); outputs are "
                         "never written through a link: give the file's own path or remove "
                         "the link")
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: is {kind_of(st.st_mode)}, not a regular file; it is not "
                         "replaced")
    if st.st_mode & 0o222 == 0:
        raise ValueError(f"{path}: is read-only (mode {stat.S_IMODE(st.st_mode):04o}), so it "
                         "is not replaced; make it writable (chmod u+w) or remove it first")
    return st


def _umask() -> int:
    """The process's umask, read without changing it where /proc tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _create_temp(path: str) -> "tuple[int, str]":
    """A new file ``.NAME.XXXXXX.attnscope-tmp`` beside path, opened O_EXCL|O_NOFOLLOW: a
    name someone planted (a link) is never opened, another is tried."""
    folder = os.path.dirname(os.path.abspath(path))
    prefix = "." + os.path.basename(path)[:_NAME_IN_TEMP] + "."
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = os.path.join(folder, prefix + secrets.token_hex(3) + TEMP_SUFFIX)
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path}: cannot write: no free temporary name in {folder}")


def write_file(path: str, write: Callable[[BinaryIO], None]) -> str:
    """Writes ``path`` by ``write(file)`` under the rules above and returns path.

    Raises:
        ValueError, FileNotFoundError: as :func:`check_output`, before anything is written.
        OSError: the write failed; the destination is as it was.
    """
    check_output(path)
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            # Checked again as late as possible: the destination may have changed meanwhile.
            st = check_output(path)
            mode = 0o666 & ~_umask()
            if st is not None:
                mode = stat.S_IMODE(st.st_mode)
                if os.geteuid() == 0:  # root keeps the replaced file's owner, as the CLI does
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def check_input(path: str) -> str:
    """``path`` when it is a regular file this process can read (a link to one is fine).

    Raises:
        FileNotFoundError: it does not exist (or a link points nowhere).
        ValueError: it is a folder, a device, a FIFO or a socket.
        PermissionError: it cannot be read.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except OSError as e:
        raise OSError(e.errno, f"{path}: cannot be read: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path}: is a folder, not a file AttnScope opens")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: is {kind_of(st.st_mode)}, not a regular file")
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))
    except PermissionError as e:
        raise PermissionError(f"{path}: cannot be read: {e.strerror}") from None
    return path
