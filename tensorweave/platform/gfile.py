"""`tf.gfile` / `tf.io.gfile`: TensorFlow's file API over the local filesystem.

Mirrors TF's `file_io.py` over its C++ POSIX filesystem: paths may carry a `file://` scheme, are
cleaned lexically (`a/../b/` is `b`), and OS failures become TF error classes with TF's
"<name>; <strerror>" message. A GFile opens its file lazily: a write-mode file appears only on the
first write (or tell), and reading reopens the file after close().
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave import errors
from tensorweave.platform.compat import as_bytes
from tensorweave.platform.tf_export import tf_export

_GLOB_CHARS = "*?[\\"
_URI = re.compile(r"([a-zA-Z][0-9a-zA-Z.]*)://(.*)", re.DOTALL)
_SUPPORTED_SCHEMES = ("", "file")
_MODES = ("r", "w", "a", "r+", "w+", "a+")

# TF's ErrnoToCode: the OS error numbers that map to a code other than UNKNOWN.
_ERRNO_CODES = {
    errno.ENOENT: errors.NOT_FOUND, errno.ENXIO: errors.NOT_FOUND, errno.ENODEV: errors.NOT_FOUND,
    errno.EEXIST: errors.ALREADY_EXISTS,
    errno.EACCES: errors.PERMISSION_DENIED, errno.EPERM: errors.PERMISSION_DENIED,
    errno.EROFS: errors.PERMISSION_DENIED,
    errno.EISDIR: errors.FAILED_PRECONDITION, errno.ENOTDIR: errors.FAILED_PRECONDITION,
    errno.ENOTEMPTY: errors.FAILED_PRECONDITION, errno.EBUSY: errors.FAILED_PRECONDITION,
    errno.ETXTBSY: errors.FAILED_PRECONDITION,
    errno.EINVAL: errors.INVALID_ARGUMENT, errno.ENAMETOOLONG: errors.INVALID_ARGUMENT,
    errno.EBADF: errors.INVALID_ARGUMENT, errno.EFAULT: errors.INVALID_ARGUMENT,
    errno.ESPIPE: errors.INVALID_ARGUMENT, errno.ELOOP: errors.INVALID_ARGUMENT,
    errno.ENOSPC: errors.RESOURCE_EXHAUSTED, errno.EMFILE: errors.RESOURCE_EXHAUSTED,
    errno.ENFILE: errors.RESOURCE_EXHAUSTED, errno.ENOMEM: errors.RESOURCE_EXHAUSTED,
    errno.EFBIG: errors.RESOURCE_EXHAUSTED, errno.EDQUOT: errors.RESOURCE_EXHAUSTED,
    errno.EAGAIN: errors.UNAVAILABLE, errno.ENOSYS: errors.UNIMPLEMENTED,
    errno.EOPNOTSUPP: errors.UNIMPLEMENTED,
}


def _as_str(value: Any) -> str:
    """A path-like, str or bytes as str; TF's `compat.path_to_str` type error otherwise."""
    value = os.fspath(value) if hasattr(value, "__fspath__") else value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _split_scheme(name: str) -> tuple[str, str]:
    """(scheme prefix such as 'file://', local path); only the local filesystem is implemented."""
    uri = _URI.fullmatch(name)
    if uri is None:
        return "", name
    scheme, rest = uri.groups()
    if scheme not in _SUPPORTED_SCHEMES:
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{scheme}' not implemented (file: '{name}')")
    slash = rest.find("/")  # a host part, as in file://host/path, is not part of the local path
    return name[:len(name) - len(rest)] + rest[:max(slash, 0)], rest[slash:] if slash >= 0 else ""


def _local(name: str) -> str:
    """The OS path of a gfile name: scheme stripped and cleaned like TF's `io::CleanPath`."""
    path = _split_scheme(name)[1]
    return posixpath.normpath(path) if path else path


def _os_error(name: str, error: OSError) -> errors.OpError:
    """The TF error for an OS failure on `name`: class from errno, message "<name>; <strerror>"."""
    code = _ERRNO_CODES.get(error.errno, errors.UNKNOWN)
    message = f"{name}; {os.strerror(error.errno) if error.errno else error}"
    return errors.exception_type_from_error_code(code)(None, None, message)


class FileStatistics:
    """What `Stat` returns: length in bytes, modification time (whole seconds, in ns), directory flag."""

    __slots__ = ("_length", "_mtime_nsec", "_is_directory")

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self._length = length
        self._mtime_nsec = mtime_nsec
        self._is_directory = is_directory

    @property
    def length(self) -> int:
        return self._length

    @property
    def mtime_nsec(self) -> int:
        return self._mtime_nsec

    @property
    def is_directory(self) -> bool:
        return self._is_directory


class FileIO:
    """A file in TF's modes 'r', 'w', 'a', 'r+', 'w+', 'a+' (plus 'b' for bytes instead of str).

    Reads go through one handle and writes through another, each opened on first use: 'r+' and
    'w+' writes truncate the file as TF's do, and `close()` lets a later read start over.
    """

    def __init__(self, name: Any, mode: str) -> None:
        self._name = name
        self._mode = mode
        self._binary_mode = "b" in mode
        base_mode = mode.replace("b", "")
        if base_mode not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._readable = base_mode in ("r", "r+", "a+", "w+")
        self._writable = base_mode in ("a", "w", "r+", "a+", "w+")
        self._append = "a" in base_mode
        self._reader: Any = None
        self._writer: Any = None

    @property
    def name(self) -> Any:
        """The file name as given."""
        return self._name

    @property
    def mode(self) -> str:
        """The mode the file was opened in."""
        return self._mode

    def _open(self, flags: str) -> Any:
        name = _as_str(self._name)
        try:
            return open(_local(name), flags)  # noqa: SIM115 - kept open across calls, closed by close()
        except OSError as error:
            raise _os_error(name, error) from None

    def _read_handle(self) -> Any:
        if self._reader is None:
            if not self._readable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            self._reader = self._open("rb")
        return self._reader

    def _write_handle(self) -> Any:
        if self._writer is None:
            if not self._writable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            self._writer = self._open("ab" if self._append else "wb")
        return self._writer

    def _prepare_value(self, value: bytes) -> str | bytes:
        return value if self._binary_mode else value.decode("utf-8")

    def size(self) -> int:
        """The file's length in bytes."""
        return stat(self._name).length

    def write(self, file_content: str | bytes) -> None:
        """Appends `file_content` (str is UTF-8 encoded) at the write position."""
        self._write_handle().write(as_bytes(file_content))

    def read(self, n: int = -1) -> str | bytes:
        """Up to `n` bytes from the current position (all remaining when -1), decoded in text mode."""
        handle = self._read_handle()
        length = self.size() - self.tell() if n == -1 else n
        if length < 0:
            raise errors.InvalidArgumentError(None, None, f"Can't read a negative number of bytes: {length}")
        return self._prepare_value(handle.read(length))

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        """Moves the read position; `whence` 0, 1, 2 is from the start, the current position, the end."""
        handle = self._read_handle()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            offset = position
        if whence == 1:
            offset += self.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2.")
        if offset < 0:
            raise errors.InvalidArgumentError(None, None, f"Seeking to a negative position: {offset}")
        end = os.fstat(handle.fileno()).st_size
        handle.seek(min(offset, end))
        if offset > end:
            raise errors.OutOfRangeError(None, None, "reached end of file")

    def readline(self) -> str | bytes:
        """The next line with its '\\n' ('' at the end); TF's line reader drops every '\\r'."""
        return self._prepare_value(self._read_handle().readline().replace(b"\r", b""))

    def readlines(self) -> list[str | bytes]:
        """All remaining lines."""
        return list(iter(self.readline, self._prepare_value(b"")))

    def tell(self) -> int:
        """The read position, or the write position for write-only modes (which creates the file)."""
        if self._readable:
            return self._read_handle().tell()
        return self._write_handle().tell()

    def __enter__(self) -> FileIO:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __iter__(self) -> Iterator[str | bytes]:
        return self

    def __next__(self) -> str | bytes:
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    def next(self) -> str | bytes:
        """The next line (Python 2's iterator protocol, kept by TF)."""
        return self.__next__()

    def flush(self) -> None:
        """Pushes buffered writes out to the OS."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes; a later read starts from the beginning, a later write truncates again."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def seekable(self) -> bool:
        """True: files support seek() and tell()."""
        return True


@tf_export("gfile.GFile", "gfile.Open", "io.gfile.GFile")
class GFile(FileIO):
    """File I/O wrappers without thread locking (`tf.gfile.GFile`, `tf.gfile.Open`, `tf.io.gfile.GFile`)."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        super().__init__(name=name, mode=mode)


@tf_export("gfile.FastGFile")
class FastGFile(FileIO):
    """Deprecated alias of GFile's behaviour (`tf.gfile.FastGFile`); TF says to use tf.gfile.GFile."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        super().__init__(name=name, mode=mode)


@tf_export("io.gfile.exists")
def file_exists_v2(path: Any) -> bool:
    """Whether a file or directory exists at `path`."""
    local = _local(_as_str(path))
    return bool(local) and os.path.exists(local)


@tf_export("io.gfile.remove")
def delete_file_v2(path: Any) -> None:
    """Deletes the file at `path` (NotFoundError when missing, FailedPreconditionError for a directory)."""
    name = _as_str(path)
    try:
        os.unlink(_local(name))
    except OSError as error:
        raise _os_error(name, error) from None


@tf_export("io.gfile.glob")
def get_matching_files_v2(pattern: Any) -> list[str]:
    """The paths matching a glob pattern, or a concatenation for an iterable of patterns."""
    if isinstance(pattern, str):
        return _glob(pattern)
    return [match for single in pattern for match in _glob(_as_str(single))]


def _component_regex(component: str) -> re.Pattern:
    """A regex for one path component under POSIX fnmatch: * ? [..] [!..] [^..] and \\ escapes."""
    parts, i = [], 0
    while i < len(component):
        char = component[i]
        i += 1
        if char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        elif char == "\\" and i < len(component):
            parts.append(re.escape(component[i]))
            i += 1
        elif char == "[":
            start = i + 1 if component[i:i + 1] in ("!", "^") else i
            end = component.find("]", start + 1)
            if end < 0:
                parts.append(re.escape(char))
                continue
            negate = "^" if start > i else ""
            members = component[start:end].replace("\\", "\\\\").replace("[", "\\[").replace("^", "\\^")
            parts.append(f"[{negate}{members}]")
            i = end + 1
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts), re.DOTALL)


def _glob(pattern: str) -> list[str]:
    """TF's GetMatchingPaths: match each component after the fixed prefix against directory listings."""
    prefix, path = _split_scheme(pattern)
    first_glob = min((path.find(c) for c in _GLOB_CHARS if c in path), default=-1)
    if first_glob < 0:
        return [pattern] if path and file_exists_v2(pattern) else []
    directory = posixpath.dirname(path[:first_glob]) or "."
    if not posixpath.dirname(path[:first_glob]):
        path = posixpath.join(".", path)
    components = [c for c in path[len(directory):].split("/") if c]
    level = [directory]
    for depth, component in enumerate(components):
        matcher = _component_regex(component)
        last = depth == len(components) - 1
        level = [child for parent in level for child in _matching_children(parent, matcher)
                 if last or os.path.isdir(child)]
    return [prefix + match for match in level]


def _matching_children(directory: str, matcher: re.Pattern) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:  # a missing or unreadable directory simply matches nothing
        return []
    return [posixpath.join(directory, name) for name in names if matcher.fullmatch(name)]


@tf_export("io.gfile.mkdir")
def create_dir_v2(path: Any) -> None:
    """Creates the directory `path`; its parent must exist. An existing path is not an error (as TF)."""
    name = _as_str(path)
    if not name:
        return
    try:
        os.mkdir(_local(name))
    except FileExistsError:
        pass
    except OSError as error:
        raise _os_error(name, error) from None


@tf_export("io.gfile.makedirs")
def recursive_create_dir_v2(path: Any) -> None:
    """Creates `path` and any missing parents; FailedPreconditionError where a file is in the way."""
    name = _as_str(path)
    prefix, local = _split_scheme(name)
    local = posixpath.normpath(local) if local else local
    current = "/" if local.startswith("/") else ""
    for component in filter(None, local.split("/")):
        current = posixpath.join(current, component)
        if os.path.isdir(current):
            continue
        if os.path.exists(current):
            raise errors.FailedPreconditionError(None, None, f"{prefix}{current} is not a directory")
        try:
            os.mkdir(current)
        except FileExistsError:
            pass
        except OSError as error:
            raise _os_error(prefix + current, error) from None


@tf_export("io.gfile.copy")
def copy_v2(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file `src` to `dst`; AlreadyExistsError when `dst` exists unless `overwrite`."""
    source, target = _as_str(src), _as_str(dst)
    if not overwrite and file_exists_v2(target):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        source_fd = os.open(_local(source), os.O_RDONLY)
    except OSError as error:
        raise _os_error(source, error) from None
    try:
        try:
            target_fd = os.open(_local(target), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as error:
            raise _os_error(target, error) from None
        try:
            offset, remaining = 0, os.fstat(source_fd).st_size
            while remaining > 0:
                sent = os.sendfile(target_fd, source_fd, offset, remaining)
                if sent == 0:
                    break
                offset, remaining = offset + sent, remaining - sent
        except OSError as error:
            raise _os_error(target, error) from None
        finally:
            os.close(target_fd)
    finally:
        os.close(source_fd)


@tf_export("io.gfile.rename")
def rename_v2(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Renames or moves a file or directory; AlreadyExistsError when `dst` exists unless `overwrite`."""
    source, target = _as_str(src), _as_str(dst)
    if not overwrite and file_exists_v2(target):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.rename(_local(source), _local(target))
    except OSError as error:
        raise _os_error(source, error) from None


@tf_export("io.gfile.rmtree")
def delete_recursively_v2(path: Any) -> None:
    """Deletes `path` and everything under it (a file is simply deleted)."""
    name = _as_str(path)
    if not file_exists_v2(name):
        raise errors.NotFoundError(None, None, f"{name} not found")
    local = _local(name)
    try:
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        else:
            os.unlink(local)
    except OSError as error:
        raise _os_error(name, error) from None


@tf_export("io.gfile.isdir")
def is_directory_v2(path: Any) -> bool:
    """Whether `path` is a directory (False on any error)."""
    try:
        local = _local(_as_str(path))
    except errors.OpError:
        return False
    return bool(local) and os.path.isdir(local)


@tf_export("io.gfile.listdir")
def list_directory_v2(path: Any) -> list[str]:
    """The entry names of a directory, in the OS's order, without '.' and '..'."""
    if not is_directory_v2(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(_local(_as_str(path)))


@tf_export("io.gfile.join")
def join(path: Any, *paths: Any) -> str:
    """Joins path components: URL-style for `scheme://` paths, `os.path.join` otherwise."""
    if "://" in _as_str(path)[1:]:
        return posixpath.join(path, *paths)
    return os.path.join(path, *paths)


@tf_export("io.gfile.walk")
def walk_v2(top: Any, topdown: bool = True,
            onerror: Callable[[errors.OpError], None] | None = None) -> Iterator[tuple[str, list, list]]:
    """Yields (directory, subdirectory names, file names) for `top` and every directory below it.

    A missing `top` yields nothing; `onerror`, when given, receives that NotFoundError first.
    """
    top = _as_str(top)
    try:
        listing = list_directory_v2(top)
    except errors.NotFoundError as error:
        if onerror:
            onerror(error)
        return
    subdirs, files = [], []
    for item in listing:
        (subdirs if is_directory_v2(join(top, item)) else files).append(item)
    if topdown:
        yield top, subdirs, files
    for subdir in subdirs:
        yield from walk_v2(join(top, subdir), topdown, onerror=onerror)
    if not topdown:
        yield top, subdirs, files


@tf_export("io.gfile.stat")
def stat_v2(path: Any) -> FileStatistics:
    """The FileStatistics of `path`."""
    name = _as_str(path)
    try:
        result = os.stat(_local(name))
    except OSError as error:
        raise _os_error(name, error) from None
    return FileStatistics(result.st_size, int(result.st_mtime) * 1_000_000_000, os.path.isdir(_local(name)))


@tf_export("io.gfile.get_registered_schemes")
def get_registered_schemes() -> list[str]:
    """The URI schemes gfile understands: '' (plain local paths) and 'file'."""
    return list(_SUPPORTED_SCHEMES)


# The tf.gfile (v1) names take TF1's parameter names.
@tf_export("gfile.Exists")
def file_exists(filename: Any) -> bool:
    """Whether a file or directory exists at `filename`."""
    return file_exists_v2(filename)


@tf_export("gfile.Remove")
def delete_file(filename: Any) -> None:
    """Deletes the file at `filename`."""
    delete_file_v2(filename)


@tf_export("gfile.Glob")
def get_matching_files(filename: Any) -> list[str]:
    """The paths matching a glob pattern (or an iterable of patterns)."""
    return get_matching_files_v2(filename)


@tf_export("gfile.MkDir")
def create_dir(dirname: Any) -> None:
    """Creates the directory `dirname`; its parent must exist."""
    create_dir_v2(dirname)


@tf_export("gfile.MakeDirs")
def recursive_create_dir(dirname: Any) -> None:
    """Creates `dirname` and any missing parents."""
    recursive_create_dir_v2(dirname)


@tf_export("gfile.Copy")
def copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    """Copies the file `oldpath` to `newpath`."""
    copy_v2(oldpath, newpath, overwrite)


@tf_export("gfile.Rename")
def rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    """Renames or moves a file or directory."""
    rename_v2(oldname, newname, overwrite)


@tf_export("gfile.DeleteRecursively")
def delete_recursively(dirname: Any) -> None:
    """Deletes `dirname` and everything under it."""
    delete_recursively_v2(dirname)


@tf_export("gfile.IsDirectory")
def is_directory(dirname: Any) -> bool:
    """Whether `dirname` is a directory."""
    return is_directory_v2(dirname)


@tf_export("gfile.ListDirectory")
def list_directory(dirname: Any) -> list[str]:
    """The entry names of a directory."""
    return list_directory_v2(dirname)


@tf_export("gfile.Walk")
def walk(top: Any, in_order: bool = True) -> Iterator[tuple[str, list, list]]:
    """Yields (directory, subdirectory names, file names), parents first unless `in_order` is False."""
    return walk_v2(top, in_order)


@tf_export("gfile.Stat")
def stat(filename: Any) -> FileStatistics:
    """The FileStatistics of `filename`."""
    return stat_v2(filename)

