"""What changed under a folder, told by the operating system (inotify, FSEvents, ...) through
`watchfiles`, for a long-lived process; polling where it cannot watch.

A process that serves many reads (`readers.keeping()`: the HTTP API, the MCP server) asks
`changes(root)` before each read. The first ask starts a daemon thread watching the folder;
until it runs, and wherever watching fails (watchfiles missing, no events on that file system,
the inotify limit reached), the answer is None and the caller polls as a short-lived process
does. While it runs, the answer is the set of paths (relative to the folder) changed since
they were last `settle`d: a read adds them to what it stats, and a read that finished settles
them. An event reaches the set some STEP_MS after the write (watchfiles waits that long for
the writes that usually follow), so a watcher never replaces the check of what is cheap to
check (folders, the pages changed last); it replaces stat'ing every other page in turn. The
thread leaves once the process stops keeping readers.

No threading import at module level: the CLI and the hook load the KB's sync, never this.
"""

from __future__ import annotations

import os

STEP_MS = 20  # how long watchfiles waits for more changes before it tells a batch
DEBOUNCE_MS = 200  # the longest it gathers one batch
TIMEOUT_MS = 1000  # how often the thread looks whether the process still keeps readers

_watches: dict[str, _Watch] = {}


class _Watch:
    def __init__(self, root: str) -> None:
        import threading

        self.root = root
        self.live = False
        self.failed = False
        self.paths: dict[str, int] = {}  # path -> the batch that last named it
        self.batches = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"watch {root}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from solograph import readers

        try:
            import watchfiles
        except ImportError:
            self.failed = True
            return
        prefix = self.root.rstrip(os.sep) + os.sep
        try:
            for batch in watchfiles.watch(
                    self.root, debounce=DEBOUNCE_MS, step=STEP_MS, rust_timeout=TIMEOUT_MS,
                    yield_on_timeout=True, stop_event=self.stop, raise_interrupt=False,
                    ignore_permission_denied=True, watch_filter=None):
                if not readers.keeping():
                    break
                with self.lock:
                    self.batches += 1
                    for _, path in batch:
                        if path.startswith(prefix):
                            self.paths[path[len(prefix):]] = self.batches
                self.live = True  # the first batch (or timeout) says the watch is set up
        except (OSError, RuntimeError):  # the inotify limit, a file system without events
            self.failed = True
        finally:
            self.live = False
            _watches.pop(self.root, None)


def changes(root: str) -> dict[str, int] | None:
    """The paths under `root` changed since last settled, or None: not watching (yet), poll."""
    from solograph import readers

    if not readers.keeping():
        return None
    root = os.path.abspath(root)
    watch = _watches.get(root)
    if watch is None:
        _watches[root] = _Watch(root)
        return None
    if not watch.live:
        return None
    with watch.lock:
        return dict(watch.paths)


def settle(root: str, seen: dict[str, int]) -> None:
    """The paths `changes` gave were checked: later asks name them only when they change
    again (a path named by a newer batch since stays)."""
    watch = _watches.get(os.path.abspath(root))
    if watch is not None:
        with watch.lock:
            for path, batch in seen.items():
                if watch.paths.get(path) == batch:
                    del watch.paths[path]


def stop_all() -> None:
    """Stop every watch (a test, or a process that is shutting down)."""
    for watch in list(_watches.values()):
        watch.stop.set()
        watch.thread.join(timeout=5)
    _watches.clear()
