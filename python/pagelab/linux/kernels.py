"""Debian's Linux kernels, fetched with apt and unpacked into pagelab's cache.

A kernel is named by its series ("6.1", "6.12"). The package is Debian's generic amd64 image
(`linux-image-<abi>-amd64-unsigned`, the same kernel as the signed one without the signature):
the cloud flavour lacks zswap. The package the validation's reference was measured with is
taken while the archive offers it, else the newest of the series, and its exact release is kept
with every result; `PAGELAB_LINUX_<series>` (for example
`PAGELAB_LINUX_6_1=linux-image-6.1.0-56-amd64-unsigned`) pins one.

Only what the guest needs is kept: the compressed kernel, its config, and the modules the
harness loads (brd, zram and what they depend on), decompressed so that busybox's insmod reads
them.
"""

from __future__ import annotations

import json
import lzma
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import PagelabError

#: Series the harness knows, with the apt name pattern of their packages.
SERIES = {
    "6.1": re.compile(r"^linux-image-6\.1\.0-(\d+)-amd64-unsigned$"),
    "6.12": re.compile(r"^linux-image-6\.12\.(\d+)\+deb12-amd64-unsigned$"),
}
#: The packages the validation's reference was measured with (`linux-validation-kernel.json`
#: keeps each run's release): fetched by default while the archive still offers them, so that
#: a new machine runs the kernel the predictions were judged against.
REFERENCE_PACKAGES = {
    "6.1": "linux-image-6.1.0-57-amd64-unsigned",
    "6.12": "linux-image-6.12.117+deb12-amd64-unsigned",
}
#: Modules the guest may load; their dependencies are found from each module's modinfo.
WANTED = ("brd", "zram")


@dataclass(frozen=True)
class Kernel:
    """An unpacked kernel in the cache."""

    series: str
    package: str
    release: str
    root: Path

    @property
    def vmlinuz(self) -> Path:
        return self.root / "vmlinuz"

    @property
    def config(self) -> str:
        return (self.root / "config").read_text()

    def modules(self, name: str) -> list[Path]:
        """`name` and its dependencies, dependencies first, as files to insmod."""
        order = json.loads((self.root / "modules.json").read_text())
        if name not in order:
            raise PagelabError(f"kernel {self.release} has no module {name}")
        return [self.root / "modules" / f"{m}.ko" for m in order[name]]


def cache_root() -> Path:
    base = os.environ.get("PAGELAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pagelab"
    )
    return Path(base) / "linux"


def check_series(series: str) -> str:
    if series not in SERIES:
        raise PagelabError(f"--kernel {series}: expected one of {', '.join(SERIES)}")
    return series


def package_for(series: str) -> str:
    """The package to fetch: the pinned one, else the reference's if apt knows it, else the
    newest of the series apt knows."""
    pin = os.environ.get("PAGELAB_LINUX_" + series.replace(".", "_"))
    if pin:
        return pin
    if shutil.which("apt-cache") is None:
        raise PagelabError("fetching a kernel needs Debian's apt (apt-cache not found)")
    names = subprocess.run(
        ["apt-cache", "pkgnames", "linux-image-"], capture_output=True, text=True, check=False
    ).stdout.split()
    if REFERENCE_PACKAGES[series] in names:
        return REFERENCE_PACKAGES[series]
    found = [(int(m.group(1)), n) for n in names if (m := SERIES[series].match(n))]
    if not found:
        raise PagelabError(
            f"no Debian package of Linux {series} known to apt (run `apt-get update`)"
        )
    return max(found)[1]


def kernel(series: str, *, fetch: bool = True) -> Kernel:
    """The cached kernel of `series`, fetched and unpacked on first use when `fetch`."""
    check_series(series)
    link = cache_root() / series
    if (link / "kernel.json").exists():
        meta = json.loads((link / "kernel.json").read_text())
        return Kernel(series, meta["package"], meta["release"], link.resolve())
    if not fetch:
        raise PagelabError(f"Linux {series} is not fetched yet: run `pagelab linux fetch {series}`")
    return _fetch(series, package_for(series))


def _fetch(series: str, package: str) -> Kernel:
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        got = subprocess.run(
            ["apt-get", "download", "-q", package], cwd=tmp, capture_output=True, text=True
        )
        debs = list(Path(tmp).glob("*.deb"))
        if got.returncode != 0 or not debs:
            last = (got.stderr.strip().splitlines() or ["no output"])[-1]
            raise PagelabError(f"apt-get download {package} failed: {last}")
        tree = Path(tmp) / "tree"
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(tree)], check=True)
        vmlinuz = next((tree / "boot").glob("vmlinuz-*"))
        release = vmlinuz.name.removeprefix("vmlinuz-")
        dest = Path(tmp) / "out"
        (dest / "modules").mkdir(parents=True)
        shutil.copy(vmlinuz, dest / "vmlinuz")
        shutil.copy(tree / "boot" / f"config-{release}", dest / "config")
        order = _modules(tree / "lib" / "modules" / release, dest / "modules")
        (dest / "modules.json").write_text(json.dumps(order, indent=1))
        meta = {"series": series, "package": package, "release": release}
        (dest / "kernel.json").write_text(json.dumps(meta, indent=1))
        final = root / release
        if final.exists():
            shutil.rmtree(final)
        dest.rename(final)
    link = root / series
    tmp_link = root / f".{series}.link"
    tmp_link.unlink(missing_ok=True)
    tmp_link.symlink_to(release)
    tmp_link.replace(link)
    return Kernel(series, package, release, final)


def _modules(tree: Path, out: Path) -> dict[str, list[str]]:
    """Copies WANTED and their dependencies (decompressed) to `out`; returns load orders."""
    files = {}
    for p in tree.rglob("*.ko*"):
        files[p.name.split(".ko")[0].replace("-", "_")] = p
    blobs: dict[str, bytes] = {}

    def load(name: str) -> bytes:
        if name not in blobs:
            if name not in files:
                raise PagelabError(f"module {name} missing from the kernel package")
            data = files[name].read_bytes()
            if files[name].name.endswith(".xz"):
                data = lzma.decompress(data)
            blobs[name] = data
        return blobs[name]

    def order(name: str, seen: list[str]) -> list[str]:
        for dep in _depends(load(name)):
            if dep not in seen:
                order(dep, seen)
        if name not in seen:
            seen.append(name)
        return seen

    result = {w: order(w, []) for w in WANTED}
    for name, data in blobs.items():
        (out / f"{name}.ko").write_bytes(data)
    return result


def _depends(ko: bytes) -> list[str]:
    """The `depends=` field of a module's .modinfo strings."""
    m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", ko)
    if not m or not m.group(1):
        return []
    return [d.decode().replace("-", "_") for d in m.group(1).split(b",") if d]
