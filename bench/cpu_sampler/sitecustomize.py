"""CPU-time stack sampling inside a broker process, for ``replication_bench.py --cpu-profile``.

Loaded by every Python process started with this directory on ``PYTHONPATH`` (the bench puts
it there for its broker subprocesses); it does nothing unless ``MOLDAU_CPU_SAMPLER_DIR`` is
set. SIGUSR1 starts sampling, SIGUSR2 stops it and writes ``<dir>/<pid>.txt``: collapsed
stacks (``frame;frame;... count``, as flamegraph.pl reads them) of the main thread.

Why not py-spy alone: it samples wall-clock time, so on a busy machine a process waiting for
a core right after a write that woke another process shows that write as its hot spot. Here
the timer is ITIMER_PROF (the process's own CPU time, user + system), so the samples are
proportional to the CPU each stack used; time spent in the event loop's C code (system calls
included) lands on the Python frame that asked for it or on the next callback it runs.
"""

from __future__ import annotations

import collections
import os
import signal

_DIR = os.environ.get("MOLDAU_CPU_SAMPLER_DIR")
_INTERVAL_S = 0.001  # the kernel delivers it at its tick at best (about 4 ms)


def _install(directory: str) -> None:
    counts: collections.Counter[str] = collections.Counter()

    def sample(_signum: int, frame) -> None:  # type: ignore[no-untyped-def]
        names = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{code.co_qualname} ({'/'.join(code.co_filename.rsplit('/', 2)[-2:])})")
            frame = frame.f_back
        counts[";".join(reversed(names))] += 1

    def start(_signum: int, _frame) -> None:  # type: ignore[no-untyped-def]
        counts.clear()
        signal.signal(signal.SIGPROF, sample)
        signal.setitimer(signal.ITIMER_PROF, _INTERVAL_S, _INTERVAL_S)

    def stop(_signum: int, _frame) -> None:  # type: ignore[no-untyped-def]
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        path = os.path.join(directory, f"{os.getpid()}.txt")
        with open(path + ".part", "w") as out:
            out.writelines(f"{stack} {n}\n" for stack, n in counts.items())
        os.replace(path + ".part", path)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)


if _DIR:
    _install(_DIR)
