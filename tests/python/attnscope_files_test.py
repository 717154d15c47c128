"""The Python module's files follow the program's output rules (core's OutputFile and
check_output): `save` and `write_session` never replace or write through a symbolic link, a
FIFO, a device, a socket, a folder or a read-only file, keep a replaced file's mode, give a new
file the umask's mode, and replace a hard-linked file by name only; `show` and `render` refuse a
file that is missing or not a regular file before running anything; complex and other
non-real arrays are refused by name, never with a NumPy warning.

Run by ctest with PYTHONPATH (the clone's python/). Only files in the test's own folder are
touched: the device is a new node with /dev/null's numbers, made there.
"""

import os
import socket
import stat
import tempfile
import unittest
import warnings

import numpy as np

import attnscope
from attnscope import _output
from attnscope.files import write_session

EYE = np.eye(3, dtype=np.float32)


class Folder(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name
        self.umask = os.umask(0o022)

    def tearDown(self):
        os.umask(self.umask)
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, data=b"old", mode=0o644):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        return p

    def read(self, p):
        with open(p, "rb") as f:
            return f.read()

    def assert_no_temp_left(self):
        left = [n for n in os.listdir(self.tmp) if n.endswith(_output.TEMP_SUFFIX)]
        self.assertEqual(left, [])


class RefusedTargets(Folder):
    """Each refusal names the path and what it is, and leaves it as it was."""

    def refused(self, p, message):
        with self.assertRaises(ValueError) as caught:
            attnscope.save(p, attention=EYE)
        self.assertEqual(str(caught.exception), message)
        self.assert_no_temp_left()

    def test_symbolic_link_is_neither_replaced_nor_followed(self):
        victim = self.write("victim.npz", b"precious")
        link = self.path("link.npz")
        os.symlink(victim, link)
        self.refused(link, f"{link}: is a symbolic link (to {victim}); outputs are never "
                           "written through a link: give the file's own path or remove the link")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.read(victim), b"precious")
        with self.assertRaises(ValueError):
            write_session(link, victim)
        self.assertEqual(self.read(victim), b"precious")
        self.assertTrue(os.path.islink(link))

    def test_dangling_link_is_not_created_through(self):
        link = self.path("dangling.npz")
        os.symlink(self.path("nowhere.npz"), link)
        with self.assertRaisesRegex(ValueError, "is a symbolic link"):
            attnscope.save(link, attention=EYE)
        self.assertFalse(os.path.exists(self.path("nowhere.npz")))

    def test_fifo_is_not_replaced(self):
        fifo = self.path("pipe.npz")
        os.mkfifo(fifo)
        self.refused(fifo, f"{fifo}: is a FIFO (named pipe), not a regular file; it is not "
                           "replaced")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_device_is_not_replaced(self):
        # A node with /dev/null's numbers in the test's folder (root may make one); the real
        # devices are never touched.
        dev = self.path("null.npz")
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        self.refused(dev, f"{dev}: is a character device, not a regular file; it is not "
                          "replaced")
        st = os.lstat(dev)
        self.assertTrue(stat.S_ISCHR(st.st_mode))
        self.assertEqual((os.major(st.st_rdev), os.minor(st.st_rdev)), (1, 3))

    def test_socket_is_not_replaced(self):
        sock_path = self.path("s.npz")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(sock_path)
        s.close()
        self.refused(sock_path, f"{sock_path}: is a socket, not a regular file; it is not "
                                "replaced")
        self.assertTrue(stat.S_ISSOCK(os.lstat(sock_path).st_mode))

    def test_folder_is_not_replaced(self):
        folder = self.path("out.npz")
        os.mkdir(folder)
        self.refused(folder, f"{folder}: is a folder, not a file")
        self.assertTrue(os.path.isdir(folder))

    def test_read_only_file_is_not_replaced_even_by_root(self):
        p = self.write("ro.npz", b"keep", 0o444)
        self.refused(p, f"{p}: is read-only (mode 0444), so it is not replaced; make it "
                        "writable (chmod u+w) or remove it first")
        self.assertEqual(self.read(p), b"keep")

    def test_missing_folder_is_named(self):
        p = self.path("no/such/out.npz")
        with self.assertRaises(FileNotFoundError) as caught:
            attnscope.save(p, attention=EYE)
        self.assertEqual(str(caught.exception),
                         f"{p}: the folder {self.path('no/such')} does not exist")


class Replaced(Folder):
    def test_mode_of_a_replaced_file_is_kept(self):
        for mode in (0o644, 0o640, 0o600, 0o664):
            with self.subTest(mode=oct(mode)):
                p = self.write(f"m{mode:o}.npz", mode=mode)
                attnscope.save(p, attention=EYE)
                self.assertEqual(stat.S_IMODE(os.stat(p).st_mode), mode)
                with np.load(p) as z:
                    np.testing.assert_array_equal(z["attention"], EYE)
        self.assert_no_temp_left()

    def test_owner_of_a_replaced_file_is_kept_by_root(self):
        # As the command line does: root rewriting another user's file leaves it theirs.
        self.assertEqual(os.geteuid(), 0, "this check runs as root (ctest does here)")
        p = self.write("theirs.npz", mode=0o644)
        os.chown(p, 1234, 2345)
        attnscope.save(p, attention=EYE)
        st = os.stat(p)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)), (1234, 2345, 0o644))

    def test_new_file_gets_the_umasks_mode(self):
        for umask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
            with self.subTest(umask=oct(umask)):
                os.umask(umask)
                p = attnscope.save(self.path(f"new{umask:o}.npz"), attention=EYE)
                s = write_session(self.path(f"new{umask:o}.attnscope"), p)
                self.assertEqual(stat.S_IMODE(os.stat(p).st_mode), mode)
                self.assertEqual(stat.S_IMODE(os.stat(s).st_mode), mode)

    def test_hard_link_is_replaced_by_name_only(self):
        # As the command line does: the path names the new file; the other name keeps the old
        # contents (nothing is written into a file another name shares).
        p = self.write("a.npz", b"shared", 0o640)
        other = self.path("b.npz")
        os.link(p, other)
        attnscope.save(p, attention=EYE)
        self.assertEqual(self.read(other), b"shared")
        self.assertEqual(os.stat(other).st_nlink, 1)
        self.assertEqual(stat.S_IMODE(os.stat(p).st_mode), 0o640)
        with np.load(p) as z:
            np.testing.assert_array_equal(z["attention"], EYE)

    def test_planted_temporary_name_is_not_opened(self):
        # The temporary file is created O_EXCL|O_NOFOLLOW: a link planted at its name is
        # skipped for another name, and what it points to is untouched.
        victim = self.write("victim", b"precious")
        names = iter(["aaaaaa", "bbbbbb"])
        real = _output.secrets.token_hex
        _output.secrets.token_hex = lambda n: next(names)
        try:
            os.symlink(victim, self.path(".out.npz.aaaaaa" + _output.TEMP_SUFFIX))
            attnscope.save(self.path("out.npz"), attention=EYE)
        finally:
            _output.secrets.token_hex = real
        self.assertEqual(self.read(victim), b"precious")
        with np.load(self.path("out.npz")) as z:
            np.testing.assert_array_equal(z["attention"], EYE)
        self.assertFalse(os.path.exists(self.path(".out.npz.bbbbbb" + _output.TEMP_SUFFIX)))


class ShowChecksFirst(Folder):
    """Nothing runs for a file that cannot be opened: a stand-in program records any run."""

    def setUp(self):
        super().setUp()
        self.ran = self.path("ran")
        program = self.path("attnscope")
        with open(program, "w") as f:
            f.write(f"#!/bin/sh\necho \"$@\" >> '{self.ran}'\nexit 0\n")
        os.chmod(program, 0o755)
        self.saved_bin = os.environ.get("ATTNSCOPE_BIN")
        os.environ["ATTNSCOPE_BIN"] = program

    def tearDown(self):
        if self.saved_bin is None:
            os.environ.pop("ATTNSCOPE_BIN", None)
        else:
            os.environ["ATTNSCOPE_BIN"] = self.saved_bin
        super().tearDown()

    def test_missing_and_non_regular_files_raise_before_anything_starts(self):
        fifo = self.path("pipe.npz")
        os.mkfifo(fifo)
        os.mkdir(self.path("folder"))
        missing = self.path("nonexistent.npz")
        cases = [(missing, FileNotFoundError, f"{missing}: no such file"),
                 (fifo, ValueError, f"{fifo}: is a FIFO (named pipe), not a regular file"),
                 (self.path("folder"), ValueError,
                  f"{self.path('folder')}: is a folder, not a file AttnScope opens")]
        for target, error, message in cases:
            for call in (attnscope.show, attnscope.render):
                with self.subTest(target=target, call=call.__name__):
                    with self.assertRaises(error) as caught:
                        call(target)
                    self.assertEqual(str(caught.exception), message)
        self.assertFalse(os.path.exists(self.ran), "the program was started")

    def test_a_regular_file_is_still_opened(self):
        p = attnscope.save(self.path("ok.npz"), attention=EYE)
        self.assertEqual(attnscope.show(p), p)
        with open(self.ran) as f:
            self.assertEqual(f.read(), p + "\n")


class NonRealArrays(Folder):
    def test_refused_by_name_without_a_numpy_warning(self):
        c = np.ones((2, 2), dtype=np.complex64) * (0.5 + 0.5j)
        cases = [(lambda: attnscope.save(self.path("x.npz"), attention=c),
                  "'attention' holds complex values (complex64); attention is real: pass its "
                  ".real or abs() explicitly"),
                 (lambda: attnscope.save(self.path("x.npz"), scores=c.astype(np.complex128)),
                  "'scores' holds complex values (complex128)"),
                 (lambda: attnscope.save(self.path("x.npz"), q=np.ones((1, 1, 2, 2), complex),
                                         k=np.ones((1, 1, 2, 2))),
                  "'q' holds complex values"),
                 (lambda: attnscope.head_view((c[None, None],), ["a", "b"]),
                  "attention[0] holds complex values"),
                 (lambda: attnscope.save(self.path("x.npz"),
                                         attention=np.ones((2, 2), "timedelta64[s]")),
                  "'attention' holds timedelta64[s] values, expected numbers"),
                 (lambda: attnscope.save(self.path("x.npz"),
                                         attention=np.array([[1, "a"], [None, 2]], object)),
                  "'attention' holds object values, expected numbers")]
        for call, message in cases:
            with self.subTest(message=message):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a NumPy warning fails the check
                    with self.assertRaises(ValueError) as caught:
                        call()
                self.assertIn(message, str(caught.exception))
        self.assertFalse(os.path.exists(self.path("x.npz")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
