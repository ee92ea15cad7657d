"""Workers that look like separate machines: each under its own host name (a UTS namespace,
`unshare --uts`), so its node name, heartbeat and locks are its own, optionally inside a network
namespace of its own (`ip netns exec`). Both need root; `uts_reason()` says why not when not.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from functools import cache


@cache
def uts_reason() -> str | None:
    """None when a process may take its own host name here, else why not."""
    if shutil.which("unshare") is None:
        return "needs unshare (util-linux)"
    run = subprocess.run(["unshare", "--uts", "hostname", "solograph-probe"],
                         capture_output=True, text=True, timeout=10)
    if run.returncode != 0:
        return f"unshare --uts is not permitted here: {run.stderr.strip() or run.returncode}"
    return None


def as_host(hostname: str, cmd: list[str], *, netns: str | None = None) -> list[str]:
    """`cmd` run under `hostname` (and inside network namespace `netns`); it execs, so the
    process started is the command's own and stopping its group stops it."""
    inner = ["unshare", "--uts", "sh", "-c",
             f"hostname {shlex.quote(hostname)} && exec {shlex.join(cmd)}"]
    return ["ip", "netns", "exec", netns, *inner] if netns else inner
