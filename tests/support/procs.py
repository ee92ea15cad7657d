"""Real processes for integration tests: a redis-server, a worker, a uvicorn server."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def solograph_cmd(*args: str) -> list[str]:
    """The installed console script, from this interpreter's environment."""
    exe = VENV_BIN / "solograph"
    if exe.exists():
        return [str(exe), *args]
    return [sys.executable, "-m", "solograph_services.cli.main", *args]


def wait_for(what: str, check, timeout: float, interval: float = 0.05):
    """`check()`'s first truthy answer, polled until `timeout`; else an AssertionError naming
    `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout} s")


def wait_for_port(port: int, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on {port} within {timeout}s")


def wait_for_http(url: str, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before serving {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status < 500:
                    return
        except Exception as exc:  # noqa: BLE001 - retrying until ready
            last = exc
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout}s: {last}")


@contextmanager
def process(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None,
            log: Path | None = None) -> Iterator[subprocess.Popen]:
    """Start `cmd` in its own process group; stop the whole group on exit."""
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, env={**os.environ, **(env or {})}, cwd=cwd, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        stop(proc)
        if log:
            out.close()


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


class RedisServer:
    """A private redis-server on a free loopback port that a test may stop, restart on the same
    port (an empty server: nothing is saved) or pause with SIGSTOP (a hung broker: the port
    still accepts connections, nothing answers)."""

    def __init__(self, log: Path | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.binary, self.log = binary, log
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self._out = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> RedisServer:
        self._out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no"], stdout=self._out, stderr=subprocess.STDOUT,
            start_new_session=True)
        wait_for_port(self.port, proc=self.proc)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            with suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGCONT)  # a paused server cannot exit
            stop(self.proc)
            self.proc = None
        if self._out not in (None, subprocess.DEVNULL):
            self._out.close()
        self._out = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def pause(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class HungListener:
    """A TCP listener on a free loopback port that accepts every connection and never answers:
    a broker whose port is open and whose process is stuck. `received` is what clients sent."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.connections: list[socket.socket] = []
        self._received: list[bytes] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True, name="hung-accept").start()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    @property
    def received(self) -> bytes:
        with self._lock:
            return b"".join(self._received)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._received.append(data)

    def close(self) -> None:
        self._closed.set()
        self.sock.close()
        for conn in self.connections:
            with suppress(OSError):
                conn.close()

    def __enter__(self) -> HungListener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def redis_server() -> Iterator[str]:
    """REDIS_URL when set (CI's shared server), else a private redis-server on a free port."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    with process([binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                  "--appendonly", "no"]) as proc:
        wait_for_port(port, proc=proc)
        yield f"redis://127.0.0.1:{port}/0"
