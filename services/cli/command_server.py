"""The kept command server: a warm process that runs the command line's reads.

It imports what the reads need once, then for each command a client hands it (see
`command_client.py`) it forks: the child takes the client's stdin, stdout and stderr, working
folder, environment and umask, runs the command exactly as `solograph` would, and sends back
its exit status. The parent opens no store (SQLite connections do not survive a fork) and does
nothing but accept and fork, so a slow command never holds up the next.

It serves only its own user (the socket's folder is private and each peer's uid is checked),
only processes confined as it is (namespaces, seccomp, no-new-privileges: a sandboxed agent's
command is never run with an unconfined server's rights),
leaves after SOLOGRAPH_CLI_SERVER_IDLE_S seconds unused (900), and steps aside once any module
it loaded has changed on disk (an upgrade, an edit: looked at before each fork and each
minute), so a client never runs old code.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import signal
import socket
import struct
import sys
import time
import traceback

from solograph_services.cli.command_client import (
    IDLE,
    PROTOCOL,
    context,
    folder,
    mode,
    recv_exactly,
    socket_path,
)
from solograph_services.cli.command_preload import preload

FDS = 3
LOOK_S = 60.0  # how often an idle server checks that its code is still what is installed
PEERCRED = struct.Struct("3i")  # pid, uid, gid


def _sources() -> dict[str, int]:
    """mtime of every solograph module this process loaded: the code its children run."""
    out = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if path and (module.__name__.split(".")[0] in ("solograph", "solograph_services")
                     or module.__name__ == "__main__"):
            with contextlib.suppress(OSError):
                out[path] = os.stat(path).st_mtime_ns
    return out


def _unchanged(sources: dict[str, int]) -> bool:
    for path, mtime in sources.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


def serve(path: str, idle_s: float) -> int:
    base = os.path.dirname(path)
    if folder() != base:
        print(f"solograph: {base} is not a private folder of this user", file=sys.stderr)
        return 1
    lock = open(path[:-5] + ".lock", "a+")  # noqa: SIM115 - held for the server's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server holds it
    lock.truncate(0)
    lock.write(str(os.getpid()))
    lock.flush()
    os.chdir("/")
    preload()  # everything a read imports, before the first fork
    sources = _sources()
    confinement = context()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"solograph command server {os.getpid()} on {path}", file=sys.stderr, flush=True)
    _sweep(base, path)
    last = time.monotonic()
    try:
        while True:
            # Awake at least each minute: an install upgraded in place leaves a new copy that
            # clients reach under another name, and this one would otherwise wait out its idle.
            listener.settimeout(min(idle_s, LOOK_S) if idle_s else LOOK_S)
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if (idle_s and time.monotonic() - last >= idle_s) or not _unchanged(sources):
                    return 0
                continue
            last = time.monotonic()
            with conn:
                if not _accept(conn, sources, listener, confinement):
                    return 0
    finally:
        _leave(path, listener)


def _sweep(base: str, mine: str) -> None:
    """The files of servers that are gone (of copies since upgraded, say): a lock nobody
    holds."""
    for name in os.listdir(base):
        if not name.endswith(".lock") or os.path.join(base, name) == mine[:-5] + ".lock":
            continue
        stem = os.path.join(base, name[:-5])
        if running(stem + ".sock") is None:
            for suffix in (".sock", ".log", ".lock"):
                with contextlib.suppress(OSError):
                    os.unlink(stem + suffix)


def _leave(path: str, listener: socket.socket) -> None:
    """Remove the socket (the lock keeps every other server off this path meanwhile)."""
    with contextlib.suppress(OSError):
        mine = listener.getsockname()
        listener.close()
        if mine == path:
            os.unlink(path)


def _confined_as(peer: int, confinement: str) -> bool:
    try:
        return context(peer) == confinement
    except OSError:
        return False


def _accept(conn: socket.socket, sources: dict[str, int], listener: socket.socket,
            confinement: str) -> bool:
    """Serve one client; False when the server must leave (its code changed)."""
    conn.settimeout(5)
    fds: list[int] = []
    try:
        peer = None
        if hasattr(socket, "SO_PEERCRED"):  # elsewhere the folder's 0700 is the check
            peer, uid, _gid = PEERCRED.unpack(conn.getsockopt(
                socket.SOL_SOCKET, socket.SO_PEERCRED, PEERCRED.size))
            if uid != os.getuid():
                return True
        msg, fds = _receive(conn)
        if peer is not None and not _confined_as(peer, confinement):
            conn.sendall(b"R")  # refused: the command runs in its own process
            return True
        if not _unchanged(sources):
            conn.sendall(b"S")
            return False
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child ends in os._exit
            listener.close()
            _child(conn, msg, fds)
        return True
    except (OSError, ValueError):
        return True
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _receive(conn: socket.socket) -> tuple[bytes, list[int]]:
    head, ancillary, _flags, _addr = conn.recvmsg(
        len(PROTOCOL) + 4, socket.CMSG_LEN(FDS * 4))
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += [int.from_bytes(data[i:i + 4], sys.byteorder, signed=True)
                    for i in range(0, len(data) - len(data) % 4, 4)]
    if len(head) < len(PROTOCOL) + 4:
        head += _exactly(conn, len(PROTOCOL) + 4 - len(head))
    if head[:len(PROTOCOL)] != PROTOCOL or len(fds) != FDS:
        raise ValueError("not a solograph client")
    size = int.from_bytes(head[len(PROTOCOL):], "big")
    if size > 16 << 20:
        raise ValueError("request too large")
    return _exactly(conn, size), fds


def _exactly(conn: socket.socket, n: int) -> bytes:
    data = recv_exactly(conn, n)
    if data is None:
        raise ValueError("the client left")
    return data


def _child(conn: socket.socket, msg: bytes, fds: list[int]) -> None:
    """Become the client's command: its descriptors, folder, environment and umask."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        conn.sendall(b"P" + os.getpid().to_bytes(4, "big"))
        if conn.recv(1) != b"G":
            os._exit(0)
        conn.settimeout(None)
        fields = msg.split(b"\0")
        cwd, umask, count = os.fsdecode(fields[0]), int(fields[1]), int(fields[2])
        argv = [os.fsdecode(a) for a in fields[3:3 + count]]
        env = dict(os.fsdecode(kv).partition("=")[::2] for kv in fields[3 + count:] if kv)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _reopen_std(env)
        os.umask(umask)
        for key in [k for k in os.environ if k not in env]:
            del os.environ[key]
        for key, value in env.items():  # most are the server's already: only what differs
            if os.environ.get(key) != value:
                os.environ[key] = value
        time.tzset()
        os.chdir(cwd)
        code = _run(argv)
    except BaseException:  # noqa: BLE001 - whatever happens, the client gets a status
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        with contextlib.suppress(Exception):
            conn.sendall(b"X" + int(code).to_bytes(4, "big", signed=True))
        os._exit(code & 0xFF if isinstance(code, int) else 1)


def _run(argv: list[str]) -> int:
    from solograph_services.cli.main import run_here

    try:
        code = run_here(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int | None):
            print(exc.code, file=sys.stderr)
    return int(code or 0)


def _reopen_std(env: dict[str, str]) -> None:
    """stdin, stdout and stderr as Python would have made them for the client: buffering by
    what fd 1 is (a terminal: by line; else by block), PYTHONUNBUFFERED and PYTHONIOENCODING
    from its environment."""
    encoding, _, errors = env.get("PYTHONIOENCODING", "").partition(":")
    encoding = encoding or sys.stdout.encoding
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))

    def stream(fd: int, mode: str, errors: str, by_line: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffer = raw if unbuffered and mode == "w" else (
            io.BufferedWriter(raw) if mode == "w" else io.BufferedReader(raw))
        return io.TextIOWrapper(buffer, encoding, errors, line_buffering=by_line,
                                write_through=unbuffered and mode == "w")

    sys.stdin = stream(0, "r", errors or sys.stdin.errors, False)
    sys.stdout = stream(1, "w", errors or sys.stdout.errors, os.isatty(1))
    sys.stderr = stream(2, "w", "backslashreplace", True)


def running(path: str) -> int | None:
    """The pid of the server on `path`, or None when none holds its lock."""
    try:
        with open(path[:-5] + ".lock") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return int(lock.read().strip() or 0) or None
            fcntl.flock(lock, fcntl.LOCK_UN)
            return None
    except (OSError, ValueError):
        return None


def idle_setting() -> float:
    try:
        return max(float(os.environ.get(IDLE, "") or 900), 0.1)
    except ValueError:
        return 900.0


def command(args) -> int:
    """`solograph cli-server`: --status, --stop, or serve in the foreground."""
    base = folder()
    if base is None:
        print("solograph: the command server's folder ($XDG_RUNTIME_DIR/solograph or "
              f"/tmp/solograph-{os.getuid()}) is not this user's alone, so none runs",
              file=sys.stderr)
        return 1
    path = socket_path(base)
    pid = running(path)
    if args.status:
        state = {"socket": path, "running": pid is not None, "pid": pid, "mode": mode(),
                 "idle_s": idle_setting()}
        if args.json:
            import json

            print(json.dumps(state))
        else:
            print(f"running, pid {pid}, on {path}" if pid else f"not running ({path})")
        return 0
    if args.stop:
        if pid is None:
            print("no command server is running")
            return 0
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while running(path) is not None and time.monotonic() < deadline:
            time.sleep(0.02)
        print(f"stopped the command server (pid {pid})")
        return 0
    os.makedirs(base, mode=0o700, exist_ok=True)
    idle = idle_setting() if args.idle is None else max(args.idle, 0.0)
    return serve(path, idle)


def main(argv: list[str] | None = None) -> int:
    """What a client starts in the background: `python -m ...command_server SOCKET`."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m solograph_services.cli.command_server SOCKET", file=sys.stderr)
        return 2
    return serve(argv[0], idle_setting())


if __name__ == "__main__":
    sys.exit(main())
