"""The guest's initramfs: a gzip-compressed cpio archive in the kernel's "newc" format.

The format is the one the kernel's initramfs unpacker reads (Documentation/driver-api/
early-userspace/buffer-format.rst): per entry a 110-byte ASCII header of thirteen 8-digit hex
fields after the magic 070701, the NUL-terminated name, the data, each padded to 4 bytes, and a
final entry named TRAILER!!!.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
from dataclasses import dataclass, field


@dataclass
class Archive:
    """Entries in the order they are added; directories before what they hold."""

    entries: list[tuple[str, int, bytes]] = field(default_factory=list)
    _dirs: set[str] = field(default_factory=set)

    def directory(self, name: str) -> None:
        parts = name.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d and d not in self._dirs:
                self._dirs.add(d)
                self.entries.append((d, stat.S_IFDIR | 0o755, b""))

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        name = name.strip("/")
        if "/" in name:
            self.directory(name.rsplit("/", 1)[0])
        self.entries.append((name, stat.S_IFREG | mode, data))

    def symlink(self, name: str, target: str) -> None:
        name = name.strip("/")
        if "/" in name:
            self.directory(name.rsplit("/", 1)[0])
        self.entries.append((name, stat.S_IFLNK | 0o777, target.encode()))

    def node(self, name: str, mode: int, major: int, minor: int) -> None:
        self.entries.append((name.strip("/"), mode, (major, minor)))  # type: ignore[arg-type]

    def bytes(self, level: int = 1) -> bytes:
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=level, mtime=0) as gz:
            for ino, (name, mode, data) in enumerate(self.entries, start=1):
                dev = (0, 0)
                if isinstance(data, tuple):
                    dev, data = data, b""
                _entry(gz, ino, name, mode, data, dev)
            _entry(gz, 0, "TRAILER!!!", 0, b"", (0, 0))
        return out.getvalue()


def _pad(n: int) -> bytes:
    return b"\0" * ((4 - n % 4) % 4)


def _entry(out: gzip.GzipFile, ino: int, name: str, mode: int, data: bytes, dev) -> None:
    raw = name.encode() + b"\0"
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, dev[0], dev[1], len(raw), 0)
    header = b"070701" + b"".join(f"{v:08x}".encode() for v in fields)
    out.write(header + raw + _pad(len(header) + len(raw)))
    out.write(data + _pad(len(data)))


def from_tree(archive: Archive, root: str | os.PathLike[str], under: str) -> None:
    """Adds every file below `root` at `under/...`, keeping modes."""
    root = os.fspath(root)
    for dirpath, _dirs, files in sorted(os.walk(root)):
        rel = os.path.relpath(dirpath, root)
        base = under if rel == "." else f"{under}/{rel}"
        archive.directory(base)
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                archive.file(f"{base}/{f}", fh.read(), os.stat(p).st_mode & 0o777)
