"""The command line's side of the kept command server: hand a read to a warm process.

A read's whole-process time is mostly Python importing what the read needs. A kept server
(`command_server.py`) has it imported already; a command hands it the argv, the working folder,
the environment and umask, and its own stdin, stdout and stderr (passed over a Unix socket as
file descriptors, as Mercurial's chg does), so the forked process that runs the command writes
to the same terminal or pipe the command would have, and its exit status comes back.

Nothing here may cost what it saves: only `os`, `sys` and the C modules `_socket` and `_signal`.
Any failure before the server has started the command means the command runs in this process,
exactly as without a server; `SOLOGRAPH_CLI_SERVER=off` never tries.
"""

import os
import sys

MODE = "SOLOGRAPH_CLI_SERVER"  # auto (the default): use one, start one when none runs; off
IDLE = "SOLOGRAPH_CLI_SERVER_IDLE_S"  # the server leaves after this long unused (900)
PROTOCOL = b"SG1"

# Commands that only read, and the hook (it reads its event from the stdin handed over): the
# rest (scans, syncs, the services, training) run where they were typed.
READS = frozenset(("symbols", "explain", "deps", "stats", "projects", "shared", "dupes",
                   "sessions", "kb", "kb-graph", "kb-hint", "compact", "usage", "hook"))
SOURCE_READS = frozenset(("search", "list", "tags", "related"))
HANDSHAKE_S = 5.0


def mode() -> str:
    """SOLOGRAPH_CLI_SERVER as it is obeyed: "off", or "auto" for anything else."""
    return "off" if os.environ.get(MODE, "").strip().lower() == "off" else "auto"


def served(argv: list[str]) -> bool:
    """Whether this command line is a read the server may run."""
    if not argv:
        return False
    if argv[0] == "sources":
        return len(argv) > 1 and argv[1] in SOURCE_READS
    if argv[0] == "hook":
        return not {"-h", "--help"} & set(argv)
    return argv[0] in READS


def folder() -> str | None:
    """The private folder of this user's sockets: $XDG_RUNTIME_DIR/solograph, else
    /tmp/solograph-UID. None when it exists but is not this user's alone."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    path = (os.path.join(runtime, "solograph") if runtime and os.path.isabs(runtime)
            else f"/tmp/solograph-{os.getuid()}")
    try:
        st = os.lstat(path)  # a link planted in /tmp is not our folder, whatever it points at
    except FileNotFoundError:
        return path
    except OSError:
        return None
    if st.st_mode & 0o170000 != 0o040000 or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return path


def socket_path(base: str) -> str:
    """One server per installed copy of solograph, interpreter environment and confinement:
    two venvs never share one, not even two editable installs of the same checkout, and a
    sandboxed command never reaches a server started outside its sandbox."""
    code = os.stat(os.path.dirname(os.path.abspath(__file__)))
    env = os.stat(sys.prefix)
    key = 0
    for byte in context().encode():
        key = (key * 31 + byte) & 0xFFFFFFFF
    return os.path.join(base, f"cli-{code.st_dev:x}-{code.st_ino:x}-{env.st_ino:x}-{key:x}.sock")


NAMESPACES = ("mnt", "user", "net", "pid", "ipc", "uts", "cgroup")
CONFINEMENT = (b"NoNewPrivs:", b"Seccomp:", b"Seccomp_filters:")


def context(pid: int | str = "self") -> str:
    """What confines a process: its namespaces, seccomp filters and no-new-privileges bit ("" on
    a system without /proc). The server runs a command only for a process confined as it is:
    an agent's sandboxed command must not be run by an unconfined server, with its rights."""
    try:
        parts = [os.readlink(f"/proc/{pid}/ns/{name}") for name in NAMESPACES]
        with open(f"/proc/{pid}/status", "rb") as status:
            parts += [line.strip().decode() for line in status if line.startswith(CONFINEMENT)]
    except FileNotFoundError:
        if pid == "self" and not os.path.isdir("/proc/self"):
            return ""
        raise
    return "|".join(parts)


def run(argv: list[str]) -> int | None:
    """The command's exit status, run by the kept server; None when it must run here."""
    if mode() == "off" or not served(argv):
        return None
    try:
        sock, pid = _hand_over(argv)
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - no Unix sockets here, a refused descriptor, ...: run here
        return None
    if sock is None:
        return None
    try:
        return _wait(sock, pid, fails_open=argv[0] == "hook")
    finally:
        sock.close()


def _hand_over(argv: list[str]):
    """(the socket, the pid of the server's process that took the command), or (None, 0)
    when nothing was handed over (no server: one is started after this command)."""
    base = folder()
    if base is None:
        return None, 0
    path = socket_path(base)
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            PENDING.append((base, path))  # started once this command is done: see start_pending
            raise
        umask = os.umask(0o22)
        os.umask(umask)
        fields = [os.fsencode(os.getcwd()), b"%d" % umask, b"%d" % len(argv),
                  *map(os.fsencode, argv),
                  *(os.fsencode(k) + b"=" + os.fsencode(v) for k, v in os.environ.items())]
        body = b"\0".join(fields)
        head = PROTOCOL + len(body).to_bytes(4, "big")
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
        sock.settimeout(HANDSHAKE_S)
        sent = sock.sendmsg([head + body], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(head) + len(body):
            sock.sendall((head + body)[sent:])
        reply = recv_exactly(sock, 5)
        if reply is None or reply[:1] != b"P":
            sock.close()
            return None, 0  # a server that is leaving, or stale: run here
        sock.sendall(b"G")  # from here on the command is the server's
    except BaseException:
        sock.close()
        raise
    return sock, int.from_bytes(reply[1:], "big")


def _wait(sock, pid: int, fails_open: bool) -> int:
    """The exit status the server's process sends, passing Ctrl-C and SIGTERM on to it. A hook
    fails open: whatever ended its process, silence and 0."""
    import _signal

    forwarded: list[int] = []

    def forward(signum, frame):
        forwarded.append(signum)
        try:  # noqa: SIM105 - contextlib is an import this module does not pay for
            os.kill(pid, signum)
        except OSError:
            pass

    _signal.signal(_signal.SIGTERM, forward)
    sock.settimeout(None)
    while True:
        try:
            reply = recv_exactly(sock, 5)
            break
        except KeyboardInterrupt:
            forward(_signal.SIGINT, None)
        except OSError:
            reply = None
            break
    if reply is not None and reply[:1] == b"X":
        return int.from_bytes(reply[1:], "big", signed=True)
    if fails_open:
        return 0
    if forwarded:
        # The command died of the signal passed on to it: so does this process, as it would
        # have run the command itself.
        _signal.signal(forwarded[-1], _signal.SIG_DFL)
        os.kill(os.getpid(), forwarded[-1])
    os.write(2, b"solograph: the command server's process ended without an exit status "
                b"(set SOLOGRAPH_CLI_SERVER=off to run commands in their own process)\n")
    return 1


def recv_exactly(sock, n: int) -> bytes | None:
    """`n` bytes from `sock`, or None when the peer closed it first."""
    parts, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _inherited() -> list[int]:
    """Descriptors past stderr that a child would inherit: a pipe of whoever ran this command
    (a hook runner's, say), which the server must not hold open for the next quarter hour."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return []
    out = []
    for fd in fds:
        try:
            if fd > 2 and os.get_inheritable(fd):
                out.append(fd)
        except OSError:
            pass
    return out


PENDING: list[tuple[str, str]] = []


def start_pending() -> None:
    """Start the server a command found missing, after the command has answered: its start-up
    would otherwise compete for the CPU with the command it could not serve."""
    while PENDING:
        start(*PENDING.pop())


def start(base: str, path: str) -> None:
    """Start a server in the background for the next command (this one runs here). It leaves
    its session, holds no terminal or pipe of ours, and logs to its folder."""
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        if folder() is None:
            return
        log = os.path.join(base, os.path.basename(path)[:-5] + ".log")
        null = os.devnull
        os.posix_spawn(sys.executable,
                       [sys.executable, "-P", "-m", "solograph_services.cli.command_server",
                        path],
                       os.environ,
                       file_actions=[(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 2, log,
                                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                                     *((os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited())],
                       setsid=True)
    except Exception:  # noqa: BLE001 - no posix_spawn or setsid: each command runs alone
        pass
