"""Runs (spec point x seed) as tasks on Dask distributed and files each result in the store.

A `LocalCluster` of worker processes, one per core unless told otherwise, or an existing
scheduler (`--scheduler tcp://HOST:PORT`, e.g. one started by dask-jobqueue on Slurm or PBS;
its workers must see the spec files at the same paths). With one worker and no scheduler the
runs are made in this process: there is nothing to parallelise and no cluster to start. Dask is
imported here, only when something is to be run, so the other commands start as fast as before.

A run depends on its spec and seed alone (the engine's random streams are split from the seed),
so which worker runs it, and in what order, changes nothing in the result.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import progress
from ..errors import PagelabError
from .spec import Point
from .store import Store, run_row

#: How long to wait for an existing scheduler to answer [s].
CONNECT_TIMEOUT_S = 5


@dataclass(frozen=True)
class Task:
    """One run to have: a point of a spec, a seed, the swept keys' values for its row."""

    point: Point
    seed: int
    key: str
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class Outcome:
    """Rows of the tasks in order, and how many were computed rather than read back."""

    rows: list[dict[str, Any]]
    computed: int
    wall_seconds: float
    #: Stored runs found corrupt and computed again (`repair`), each with what was wrong.
    repaired: list[str] = field(default_factory=list)


def run_point(path: str, overrides: Sequence[str], seed: int) -> dict[str, Any]:
    """The task a worker runs: one simulation, its whole report."""
    from .. import system

    with progress.quiet():
        return system.run(path, overrides=list(overrides), seed=seed)


def execute(
    tasks: Sequence[Task],
    store: Store | None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    label: str = "sweep",
    pool: Runner | None = None,
    repair: bool = False,
) -> Outcome:
    """Has every task's run, computing only those not in the store; rows in task order. With
    `repair`, a stored run that fails its checksum is computed again rather than refused."""
    from .. import __version__

    started = time.perf_counter()
    present = store.check(repair=repair) if store is not None else set()
    unique = {t.key: t for t in tasks}
    pending = [t for k, t in unique.items() if k not in present]
    fresh: dict[str, dict[str, Any]] = {}

    def keep(task: Task, report: dict[str, Any]) -> None:
        row, units = run_row(task.key, task.point, task.seed, task.params, report, __version__)
        if store is not None:
            store.write(row, units)
        else:
            fresh[task.key] = row

    if pending:
        done0 = len(unique) - len(pending)
        with progress.bar(label, total=len(unique)) as update:
            update(done0, len(unique))
            with contextlib.nullcontext(pool) if pool else runner(workers, scheduler) as run:
                for i, (task, report) in enumerate(run(pending), start=1):
                    keep(task, report)
                    update(done0 + i, len(unique))
    stored = {}
    if store is not None:
        stored = dict(zip(unique, store.read(unique), strict=True))
    rows = [fresh.get(t.key) or stored[t.key] for t in tasks]
    repaired = list(store.repaired) if store is not None else []
    return Outcome(rows, len(pending), time.perf_counter() - started, repaired)


Runner = Any  # Callable[[list[Task]], Iterator[tuple[Task, dict]]]


@contextlib.contextmanager
def runner(workers: int | None, scheduler: str | None) -> Iterator[Runner]:
    """Where runs are made: this process (one worker), a LocalCluster, or a scheduler's
    workers. Open once to share a cluster between several `execute` calls (`pool=`)."""
    check_workers(workers)
    if scheduler is None and workers == 1:
        yield _inline
        return
    with contextlib.ExitStack() as stack:
        clients: list[Any] = []

        def on_dask(tasks: list[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
            # The cluster starts at the first run to make: a sweep read from the store needs none.
            if not clients:
                clients.append(stack.enter_context(_client(workers, scheduler)))
            return _on_dask(clients[0], tasks)

        yield on_dask


#: Worker processes a local cluster may have per core: each is a whole Python process with
#: the engine (some 150 MB), and runs are CPU-bound, so more than a few per core only costs
#: memory (`--workers 100000` grew memory and started no worker).
WORKERS_PER_CORE = 4


def max_workers() -> int:
    """The most worker processes this machine may start."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_workers(workers: Any) -> None:
    """`--workers`: None (one per core), or a whole number from 1 to :func:`max_workers`."""
    if workers is not None:
        from .. import validate

        validate.integer(workers, "--workers", lo=1, hi=max_workers())


def _inline(tasks: list[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
    for t in tasks:
        yield t, run_point(str(t.point.path), t.point.overrides, t.seed)


@contextlib.contextmanager
def _client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    import logging

    from dask.distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except Exception as e:
            raise PagelabError(
                f"--scheduler {scheduler}: no scheduler answers there ({_first_line(e)})"
            ) from None
        with client:
            yield client
        return
    n = workers or os.cpu_count() or 1
    _quiet_resource_tracker()
    try:
        try:
            with _main_script_hidden():
                cluster = _start_deaf(
                    lambda: LocalCluster(
                        n_workers=n,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        # No dashboard; its HTTP routes on a free port, not on 8787 (another
                        # cluster's port, with a warning).
                        scheduler_kwargs={"dashboard_address": ":0"},
                        # A failed run is reported by `_on_dask` in one line; the workers' own
                        # error log would repeat it with a traceback.
                        silence_logs=logging.CRITICAL,
                    )
                )
        except Exception as e:
            raise PagelabError(
                f"the {n} Dask worker processes did not start ({_first_line(e)}); if this is a "
                'script, put its code under `if __name__ == "__main__":` (docs/python.md)'
            ) from None
        with Client(cluster) as client:
            yield client
    except BaseException:
        # Ctrl-C or an error: the workers are killed, not asked to finish (a graceful close
        # takes seconds); their runs were never filed, and the store holds only whole runs.
        _kill_children()
        raise
    cluster.close()


@contextlib.contextmanager
def _main_script_hidden() -> Iterator[None]:
    """Starts worker processes without rerunning the script that asked for them.

    A worker process is spawned, and a spawned process first imports the parent's main module
    from its file (multiprocessing, `spawn.get_preparation_data`): a script without an
    `if __name__ == "__main__":` guard would rerun every simulation before the sweep, in each
    worker, and start a cluster of its own. The workers run pagelab's tasks only
    (`run_point`), which need nothing from the script, so while they start the main module
    shows no file to import, as in an interactive session.
    """
    main = sys.modules.get("__main__")
    hidden = {}
    if main is not None:
        for attr in ("__file__", "__spec__"):
            if getattr(main, attr, None) is not None:
                hidden[attr] = getattr(main, attr)
                setattr(main, attr, None)
    try:
        yield
    finally:
        for attr, value in hidden.items():
            setattr(main, attr, value)


def _start_deaf(make: Any) -> Any:
    """`make()` (a cluster) called in a thread that blocks SIGINT and SIGTERM, so that the
    threads and worker processes it starts inherit the block: a Ctrl-C to the terminal's
    process group then reaches only this process, which stops the workers itself (they used
    to print four tracebacks before the command's line). This thread waits in short steps, so
    that a signal during the start still stops the command at once."""
    box: dict[str, Any] = {}

    def start() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            box["made"] = make()
        except BaseException as e:  # handed to the waiting thread
            box["error"] = e

    t = threading.Thread(target=start, name="pagelab-cluster-start", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.05)
    if "error" in box:
        raise box["error"]
    return box["made"]


def _quiet_resource_tracker() -> None:
    """Starts multiprocessing's resource tracker with its stderr on /dev/null. Its only output
    is its report, at exit, of the semaphores the workers held when they were killed on
    Ctrl-C (it still frees them): a second line after the command's one."""
    from multiprocessing import resource_tracker

    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _kill_children() -> None:
    """Kills this process's worker processes (the nannies; each worker ends with its nanny)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        with contextlib.suppress(OSError):
            child.kill()


def _on_dask(client: Any, tasks: list[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
    from dask.distributed import as_completed

    # A fresh key per submission: a run cancelled with a failed batch (below) and asked for
    # again must not meet its own cancelled future under the old key.
    batch = uuid.uuid4().hex[:12]
    futures = {
        client.submit(
            run_point,
            str(t.point.path),
            t.point.overrides,
            t.seed,
            key=f"run-{t.key}-{batch}",
            pure=False,
        ): t
        for t in tasks
    }
    try:
        for fut in as_completed(futures):
            task = futures[fut]
            try:
                report = fut.result()
            except PagelabError:
                raise
            except Exception as e:
                raise PagelabError(
                    f"{task.point.name} seed {task.seed}: the run failed ({_first_line(e)})"
                ) from None
            yield task, report
    finally:
        # Ctrl-C or an error: drop what is queued; the store holds only finished runs.
        client.cancel(list(futures))


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__
