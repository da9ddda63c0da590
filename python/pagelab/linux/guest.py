"""One boot of a real kernel under QEMU: the init script, the command line, the answer read back.

The guest is a busybox initramfs whose /init sets the machine up as the run asks (swap on a RAM
disk or zram, zswap, MGLRU on or off, `vm.page-cluster`, `vm.swappiness`, THP off), makes a
cgroup v2 with `memory.max`, runs the replayer in it, and prints the kernel's counters between
two marker lines on the serial console, then powers off. Everything the host reads comes from
the kernel's own files: /proc/vmstat, the cgroup's memory.stat, memory.events and
memory.pressure, and zswap's debugfs counters.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import PagelabError
from . import diag_kprobes, initramfs, lru_kprobes, reclaim_events
from .kernels import Kernel, cache_root

BEGIN, END = "PAGELAB-BEGIN", "PAGELAB-END"
#: The /proc/vmstat counters read before and after the replay.
VMSTAT = (
    "^(pgmajfault|pgfault|pswpin|pswpout|workingset_[a-z_]+|zswp[a-z]+|pgscan_[a-z]+"
    "|pgsteal_[a-z]+|pgactivate|pgdeactivate|pgrefill|swap_ra|swap_ra_hit) "
)
#: Guest memory besides the swap device and the touch list [MiB]: kernel, busybox, page cache.
BASE_MIB = 192
#: The guest's memory when that fits [MiB]: one size for every boot, so that what depends on
#: the machine's RAM (zswap's cap is a share of it) does not depend on what else a boot holds.
GUEST_MIB = 512


@dataclass(frozen=True)
class Cell:
    """One replay: a touch list under one setting of the kernel's knobs."""

    name: str  # the touch list's name in the initramfs
    pages: int  # the mapping's size in pages
    memory_max: int  # bytes, the cgroup's memory.max
    lru_gen: bool
    page_cluster: int = 0
    swappiness: int = 60
    zswap: str | None = None  # None, or "compressor:zpool:max_pool_percent"
    reclaim_events: bool = False  # the vmscan tracepoints on around the replay
    tlb_probe: bool = False  # the replayer measures the TLB's entries after its loop
    switches: bool = False  # with the vmscan tracepoints, the replayer's context switches
    faults: bool = False  # with the vmscan tracepoints, the replayer's user page faults
    young: bool = False  # with them, those faults and the accessed bit's tests (kprobes)
    lists: str | None = None  # with them, the series whose lists are read (lru_kprobes)
    probes: tuple[str, ...] = ()  # with lists, diagnostic kprobe sets (diag_kprobes.SETS)


@dataclass(frozen=True)
class Boot:
    """What one boot holds: a swap device, and the cells replayed in order."""

    swap: str  # brd | zram
    cells: tuple[Cell, ...]
    accel: str = "auto"  # auto | kvm | tcg
    timeout_s: float = 3600.0
    #: QEMU's exception log (`-d int`) to this file: every fault the guest CPU takes, TCG only.
    int_log: str | None = None


def replayer() -> Path:
    """The static replayer, compiled with gcc on first use (cached by its source's hash)."""
    src = Path(__file__).with_name("replayer.c")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:16]
    out = cache_root() / "bin" / f"replayer-{digest}"
    if out.exists():
        return out
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise PagelabError("building the guest's replayer needs gcc (apt-get install gcc)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    got = subprocess.run(
        [cc, "-static", "-O2", "-o", str(tmp), str(src)], capture_output=True, text=True
    )
    if got.returncode != 0:
        last = (got.stderr.strip().splitlines() or ["?"])[-1]
        raise PagelabError(
            f"compiling the replayer failed (static glibc needed: libc6-dev): {last}"
        )
    tmp.replace(out)
    return out


def busybox() -> Path:
    path = shutil.which("busybox")
    if path is None:
        raise PagelabError("the guest needs a static busybox (apt-get install busybox-static)")
    return Path(path)


def qemu() -> str:
    path = shutil.which("qemu-system-x86_64")
    if path is None:
        raise PagelabError("QEMU not found: apt-get install qemu-system-x86")
    return path


def kvm_works(kernel: Kernel) -> bool:
    """Whether KVM runs a guest here: /dev/kvm opens and a tiny guest prints within 20 s.

    A nested host may offer /dev/kvm and still never run the guest's first instruction, so
    the answer is a boot, made once per boot of this machine (kept under its boot id).
    """
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError:
        return False
    boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    mark = cache_root() / f"kvm-{boot_id}"
    if mark.exists():
        return mark.read_text() == "yes"
    archive = initramfs.Archive()
    archive.directory("bin")
    archive.file("bin/busybox", busybox().read_bytes(), 0o755)
    archive.file("init", b"#!/bin/busybox sh\n/bin/busybox echo KVM-OK\n"
                 b"/bin/busybox poweroff -f\n", 0o755)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="pagelab-kvm-") as tmp:
        initrd = Path(tmp) / "initrd.gz"
        initrd.write_bytes(archive.bytes())
        cmd = [qemu(), "-accel", "kvm", "-cpu", "host", "-m", "128", "-kernel",
               str(kernel.vmlinuz), "-initrd", str(initrd), "-append",
               "console=ttyS0 loglevel=1 rdinit=/init", "-nographic", "-nodefaults",
               "-serial", "stdio", "-no-reboot", "-display", "none"]  # fmt: skip
        try:
            out = subprocess.run(cmd, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
            ok = b"KVM-OK" in out.stdout
        except subprocess.TimeoutExpired:
            ok = False
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text("yes" if ok else "no")
    return ok


def init_script(boot: Boot, kernel: Kernel, swap_kib: int) -> str:
    """The guest's /init: busybox sh, one step a line, each failure reported by name."""
    lines = [
        "#!/bin/busybox sh",
        "/bin/busybox --install -s /bin",
        "export PATH=/bin",
        "mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev",
        "mount -t debugfs none /sys/kernel/debug 2>/dev/null",
        "mount -t cgroup2 none /sys/fs/cgroup",
        'fail() { echo PAGELAB-FAIL "$*"; sleep 1; poweroff -f; }',
        "echo never > /sys/kernel/mm/transparent_hugepage/enabled",
        "echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail cgroup",
    ]
    lines += _swap_lines(boot.swap, kernel, swap_kib)
    lines.append(f"echo {BEGIN}")
    for i, cell in enumerate(boot.cells):
        lines += _cell_lines(i, cell)
    lines += [f"echo {END}", "sleep 1; poweroff -f"]
    return "\n".join(lines) + "\n"


def _cell_lines(i: int, cell: Cell) -> list[str]:
    """One replay in a fresh cgroup on an empty swap device, then its counters."""
    return [
        "swapoff $DEV; swapon $DEV || fail swapon",
        f"echo {'y' if cell.lru_gen else 'n'} > /sys/kernel/mm/lru_gen/enabled || fail lru_gen",
        f"sysctl -q -w vm.page-cluster={cell.page_cluster} vm.swappiness={cell.swappiness}"
        " || fail sysctl",
        *_zswap_lines(cell.zswap),
        f"CG=/sys/fs/cgroup/replay{i}; mkdir $CG",
        "sync; echo 3 > /proc/sys/vm/drop_caches",
        f"grep -E '{VMSTAT}' /proc/vmstat > /tmp/vmstat0",
        *(
            reclaim_events.guest_on(cell.switches, cell.faults, cell.young, _lists(cell))
            if cell.reclaim_events
            else []
        ),
        "sh -c 'echo $$ > '$CG'/cgroup.procs; exec /replayer "
        f"/{cell.name} {cell.pages} '$CG' {cell.memory_max}{' probe' if cell.tlb_probe else ''}'"
        " > /tmp/replay 2>&1",
        "echo exit_status $? >> /tmp/replay",
        *(reclaim_events.guest_off() if cell.reclaim_events else []),
        f"echo '[cell {i}]'",
        "echo '[replay]'; cat /tmp/replay",
        "echo '[vmstat0]'; cat /tmp/vmstat0",
        f"echo '[vmstat1]'; grep -E '{VMSTAT}' /proc/vmstat",
        "echo '[memory.stat]'; cat $CG/memory.stat",
        "echo '[memory.events]'; cat $CG/memory.events",
        "echo '[memory.pressure]'; cat $CG/memory.pressure",
        "echo '[zswap]'; for f in /sys/kernel/debug/zswap/*; do"
        " [ -f $f ] && echo ${f##*/} $(cat $f); done",
        "echo '[kernel]'; echo release $(uname -r);"
        " echo mem_total_kib $(grep MemTotal /proc/meminfo | tr -s ' ' | cut -d' ' -f2)",
        *(
            reclaim_events.guest_dump(
                cell.switches, cell.faults, cell.young, bool(cell.lists), bool(cell.probes)
            )
            if cell.reclaim_events
            else []
        ),
        "rmdir $CG",
    ]


def _lists(cell: Cell) -> tuple[str, ...]:
    """The kprobes on the lists the cell asks for (`lru_kprobes.kprobes`), and its diagnostic
    sets (`diag_kprobes.kprobes`)."""
    if not cell.lists:
        return ()
    diag = diag_kprobes.kprobes(cell.lists, cell.probes)
    return lru_kprobes.kprobes(cell.lists, cell.lru_gen) + diag


def _swap_lines(swap: str, kernel: Kernel, swap_kib: int) -> list[str]:
    mods = kernel.modules(swap)
    out = [f"insmod /lib/modules/{m.name} || fail insmod {m.name}" for m in mods[:-1]]
    last = f"/lib/modules/{mods[-1].name}"
    if swap == "brd":
        out += [
            f"insmod {last} rd_nr=1 rd_size={swap_kib} max_part=0 || fail insmod brd",
            "DEV=/dev/ram0",
        ]
    else:
        out += [
            f"insmod {last} num_devices=1 || fail insmod zram",
            f"echo {swap_kib * 1024} > /sys/block/zram0/disksize || fail zram",
            "DEV=/dev/zram0",
        ]
    return out + ["mkswap $DEV > /dev/null || fail mkswap", "swapon $DEV || fail swapon"]


def _zswap_lines(zswap: str | None) -> list[str]:
    p = "/sys/module/zswap/parameters"
    if zswap is None:
        return [f"[ -e {p}/enabled ] && echo N > {p}/enabled"]
    compressor, zpool, percent = zswap.split(":")
    return [
        f"echo {compressor} > {p}/compressor || fail zswap compressor {compressor}",
        f"echo {zpool} > {p}/zpool || fail zswap zpool {zpool}",
        f"echo {percent} > {p}/max_pool_percent || fail zswap max_pool_percent",
        f"echo Y > {p}/enabled || fail zswap",
    ]


def run(boot: Boot, kernel: Kernel, touches: dict[str, Path]) -> tuple[list[str], float]:
    """Boots once; returns each cell's text, in order, and the wall time of the boot [s]."""
    pages = max(c.pages for c in boot.cells)
    swap_kib = (pages + 2048) * 4
    archive = initramfs.Archive()
    for d in ("bin", "proc", "sys", "dev", "tmp", "lib/modules"):
        archive.directory(d)
    archive.file("bin/busybox", busybox().read_bytes(), 0o755)
    archive.file("replayer", replayer().read_bytes(), 0o755)
    size = 0
    for name, path in touches.items():
        data = path.read_bytes()
        size += len(data)
        archive.file(name, data)
    for m in kernel.modules(boot.swap):
        archive.file(f"lib/modules/{m.name}", m.read_bytes())
    archive.file("init", init_script(boot, kernel, swap_kib).encode(), 0o755)
    mib = max(GUEST_MIB, BASE_MIB + (swap_kib // 1024) + 2 * (size >> 20))
    accel = _accel(boot.accel, kernel)
    with tempfile.TemporaryDirectory(prefix="pagelab-guest-") as tmp:
        initrd = Path(tmp) / "initrd.gz"
        initrd.write_bytes(archive.bytes())
        cmd = [
            qemu(), "-accel", accel, "-m", str(mib), "-smp", "1",
            "-kernel", str(kernel.vmlinuz), "-initrd", str(initrd),
            "-append", "console=ttyS0 loglevel=1 panic=-1 rdinit=/init",
            "-nographic", "-nodefaults", "-serial", "stdio", "-no-reboot", "-display", "none",
        ]  # fmt: skip
        if accel == "kvm":
            cmd[1:1] = ["-cpu", "host"]
        if boot.int_log is not None:
            if accel != "tcg":
                raise PagelabError("--fault-log: QEMU logs the guest's faults under TCG only")
            cmd += ["-d", "int", "-D", boot.int_log]
        body, wall = _launch(cmd, boot.timeout_s, accel)
    cells = re.split(r"^\[cell \d+\]$", body, flags=re.M)[1:]
    if len(cells) != len(boot.cells):
        raise PagelabError(f"the guest reported {len(cells)} of {len(boot.cells)} replays")
    return cells, wall


def _launch(cmd: list[str], timeout_s: float, accel: str) -> tuple[str, float]:
    """Runs QEMU; a guest that died before its first line of output is booted once more (under
    TCG on a loaded host the early boot has been seen to reset, rarely)."""
    for attempt in (1, 2):
        start = time.monotonic()
        try:
            got = subprocess.run(cmd, capture_output=True, timeout=timeout_s,
                                 stdin=subprocess.DEVNULL)  # fmt: skip
        except subprocess.TimeoutExpired:
            raise PagelabError(
                f"the guest did not finish within {timeout_s:.0f} s ({accel})"
            ) from None
        wall = time.monotonic() - start
        text = got.stdout.decode(errors="replace").replace("\r", "")
        if BEGIN in text or attempt == 2:
            return _between(text, got.stderr.decode(errors="replace")), wall
    raise AssertionError("unreachable")


def _accel(want: str, kernel: Kernel) -> str:
    if want == "auto":
        return "kvm" if kvm_works(kernel) else "tcg"
    if want == "kvm" and not kvm_works(kernel):
        raise PagelabError("--accel kvm: KVM does not run a guest here (use tcg)")
    if want not in ("kvm", "tcg"):
        raise PagelabError(f"--accel {want}: expected auto, kvm or tcg")
    return want


def _between(text: str, stderr: str) -> str:
    for line in text.splitlines():
        if line.startswith("PAGELAB-FAIL"):
            raise PagelabError(f"the guest could not set up: {line.removeprefix('PAGELAB-FAIL ')}")
    if BEGIN not in text or END not in text:
        tail = (stderr.strip() or text.strip()).splitlines()[-3:]
        raise PagelabError("the guest printed no result: " + " | ".join(tail))
    return text.split(BEGIN, 1)[1].split(END, 1)[0]
