"""A private PostgreSQL cluster for the tests that stop the database under a running process
(outages, failover), never the shared test server. (No tests here.)

::

    cluster = PrivateCluster(tmp_path).start()   # initdb (once) and start; skips without PostgreSQL
    run_something_against(cluster.url)           # postgresql://postgres@127.0.0.1:PORT/postgres
    cluster.stop()                               # pg_ctl stop -m fast: every connection is cut
    cluster.start()                              # the same data, the same port, the same URL
    cluster.freeze()                             # SIGSTOP every process: connections accepted, never answered
    cluster.thaw()                               # SIGCONT: it goes on where it stopped
    cluster.remove()                             # stopped and deleted (call it in a finally)

Or as a context manager: ``with PrivateCluster(tmp_path) as cluster: …`` (started on entry,
removed on exit).

The cluster listens on 127.0.0.1 only, on a free port chosen once (it keeps it across restarts),
with trust authentication and ``fsync=off``. Its programs are found on ``PATH`` or in Debian's
``/usr/lib/postgresql/VERSION/bin`` (the newest); without them :meth:`PrivateCluster.start`
skips the test. ``initdb`` and ``postgres`` refuse to run as root: as root they run as the
``postgres`` user (``runuser``), and the cluster's folder is a new folder of the system's
temporary one owned by that user (pytest's ``tmp_path`` is private to root); otherwise it is
``tmp_path / "postgres"``. The server's own log is :attr:`PrivateCluster.log`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

import pytest

__all__ = ["PrivateCluster", "postgres_bin"]


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``pg_ctl``), or ``None``."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    found = sorted(
        (p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: [int(part) if part.isdigit() else 0 for part in p.parent.name.split(".")],
    )
    return found[-1] if found else None


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateCluster:
    """A PostgreSQL cluster of the test's own (see the module): :meth:`start`, :meth:`stop`,
    :attr:`url`, :meth:`remove`."""

    def __init__(self, tmp_path: Path) -> None:
        self._as_root = os.getuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="pyhearts-pg-")) if self._as_root else tmp_path / "postgres"
        """The cluster's folder: its ``data`` and the server's ``server.log``."""
        self.port = _free_port()
        self._bin: Path | None = None
        self._frozen: list[int] = []
        """The processes :meth:`freeze` stopped."""

    @property
    def url(self) -> str:
        """The URL of the cluster's ``postgres`` database, as the ``postgres`` user."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def log(self) -> Path:
        """The server's log file."""
        return self.folder / "server.log"

    def _run(self, *args: str | Path) -> None:
        """Run one of the cluster's programs (as the ``postgres`` user when we are root)."""
        assert self._bin is not None
        command = [str(self._bin / str(args[0])), *map(str, args[1:])]
        if self._as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr[-2000:]}"
                               f"{self.log.read_text()[-2000:] if self.log.exists() else ''}")

    def start(self) -> PrivateCluster:
        """Start the server (creating the cluster the first time) and wait until it answers;
        skips the test when PostgreSQL is not installed."""
        if self._bin is None:
            self._bin = postgres_bin()
            if self._bin is None:
                pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
            self.folder.mkdir(parents=True, exist_ok=True)
            if self._as_root:
                shutil.chown(self.folder, "postgres")
            self._run("initdb", "-D", self.folder / "data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", self.folder / "data", "-l", self.log, "-w", "-t", "30", "-o", options, "start")
        return self

    def stop(self) -> None:
        """Stop the server at once (``pg_ctl stop -m fast``: open connections are cut)."""
        self._run("pg_ctl", "-D", self.folder / "data", "-m", "fast", "-w", "stop")

    def processes(self) -> list[int]:
        """The process ids of the running server: the postmaster's and its children's (the
        backends, the checkpointer, …)."""
        postmaster = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError):  # (a process that ended meanwhile)
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    children.append(int(stat.parent.name))
        return [postmaster, *children]

    def freeze(self) -> None:
        """Stop every process of the server (SIGSTOP): a frozen database, which accepts TCP
        connections (the kernel does) and answers nothing, until :meth:`thaw`."""
        self._frozen = self.processes()
        self._signal(self._frozen, signal.SIGSTOP)

    def thaw(self) -> None:
        """Let the processes :meth:`freeze` stopped go on (SIGCONT); nothing if none is frozen."""
        frozen, self._frozen = self._frozen, []
        self._signal(frozen, signal.SIGCONT)

    @staticmethod
    def _signal(pids: list[int], signum: signal.Signals) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    @property
    def running(self) -> bool:
        """Whether the server runs (its ``postmaster.pid`` is there)."""
        return (self.folder / "data" / "postmaster.pid").exists()

    def remove(self) -> None:
        """Stop the server if it runs (thawed first) and delete the cluster's folder."""
        self.thaw()
        if self._bin is not None and self.running:
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PrivateCluster:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.remove()
