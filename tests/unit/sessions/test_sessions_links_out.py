"""A transcript that is a symbolic link out of the transcripts folder (to /etc/passwd, to
another user's files) is never opened; one that links inside the folder is read as before."""

from __future__ import annotations

import builtins
import os

from solograph.sessions import ingest
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from tests.support.transcripts import Transcripts


def opened(monkeypatch) -> list[str]:
    seen: list[str] = []

    def spy(file, *args, **kwargs):
        seen.append(os.fspath(file))
        return builtins.open(file, *args, **kwargs)

    monkeypatch.setattr(ingest, "open", spy, raising=False)
    return seen


def test_a_transcript_linked_out_of_the_folder_is_never_opened(tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere"
    t = Transcripts(outside)
    secret = t.conversation("/home/other/code/private", "the launch codes are in vault 7",
                            "Noted.")
    root = tmp_path / "projects"
    kept = Transcripts(root).conversation("/home/dev/code/shop", "fix the webhook", "Done.")
    folder = kept.path.parent
    (folder / "passwd.jsonl").symlink_to("/etc/passwd")
    (folder / "stolen.jsonl").symlink_to(secret.path)
    (root / "linked-project").symlink_to(secret.path.parent, target_is_directory=True)
    inside = folder / "again.jsonl"
    inside.symlink_to(kept.path)
    seen = opened(monkeypatch)
    conn = open_index(tmp_path / "sessions.db")
    try:
        report = sync(conn, root)
        texts = [r[0] for r in conn.execute("SELECT text FROM entries")]
    finally:
        conn.close()
    assert not any("passwd" in p or "stolen" in p or "linked-project" in p for p in seen), seen
    assert str(inside) in seen and str(kept.path) in seen  # links inside are read
    assert not any("launch codes" in text for text in texts)
    assert any("fix the webhook" in text for text in texts)
    assert report["unreadable"] >= 3, report
