"""A fixture knowledge base, and the real wikis laid out as KBs (copied, since the corpora
folder is read-only, the KB's .solograph.yaml lives at its root, and the index never follows a
link that leaves the KB)."""

from __future__ import annotations

import shutil
from pathlib import Path

CONFIG = """kb:
  pages: wiki/
  stacks: stacks
  exclude: [archive, clients/acme]
  memory_gate: harness/memory-gate.json
scope: [web-app]
"""

PAGES: dict[str, str] = {
    "wiki/index.md": """---
title: Wiki index
---
# Wiki index

- [[agent-sandboxing|Песочница для агентов]] — running coding agents in a sandbox on macOS
- [[recipe-box]] — the recipe app: data model, units, import
- [[privacy-architecture|Privacy architecture]] — how user data stays on device
- [[missing-page]] — a page nobody wrote
""",
    "wiki/agent-sandboxing.md": """---
title: Agent sandboxing
description: Running coding agents inside a sandbox so they cannot touch the host.
tags: [agents, security]
aliases: [agent jail]
---
# Agent sandboxing

Seatbelt profiles on macOS confine the agent process. See [[privacy-architecture]] and
[[recipe-box#Data model|the recipe data model]].

## Setup

Install the profile, then start the agent through `sandbox-exec`. Containers work too.

```sh
# [[not-a-link-in-code]]
sandbox-exec -f agent.sb claude
```

Inline `[[also-not-a-link]]` stays code.

## Network

Outbound network is denied except for the model API. ![[diagram.png]]
""",
    "wiki/recipe-box.md": """---
title: Recipe box
description: The recipe app.
---
# Recipe box

A small app for recipes. Links to [[agent-sandboxing]].

## Data model

Recipes have ingredients.

### Units

Grams, millilitres and cups are stored as grams with a density table. Conversion happens
on display, never on input, so a recipe keeps what its author typed.

## Import

Importing from web pages reads schema.org Recipe markup. [[nowhere|a broken link]] and
[[agent-sandboxing#No such heading]].
""",
    "wiki/privacy-architecture.md": """---
title: Privacy architecture
description: How user data stays on the device; nothing leaves without consent.
---
# Privacy architecture

Everything is stored locally. Sync is end-to-end encrypted. See [[agent-sandboxing]] and
[[recipe-box]].

The API key is OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH for tests.
""",
    "wiki/orphan-note.md": """# Orphan note

Nobody links here and the index does not list it. It mentions zeppelins.
""",
    "wiki/broken-front.md": """---
title: [unclosed
description: oops: : :
---
# Broken front

The body of a page whose frontmatter is broken still counts: квазар.
""",
    "wiki/_aliases.yaml": "- [песочница, sandbox]\n- [агент, agent]\n",
    "wiki/diagram.png": "not really a png",
    "notes/zametka.md": """# Заметка про песочницу

Песочница для агента на маке: песочница, песочница, агент, песочница. Агент в песочнице.
""",
    "notes/meeting.md": """# Meeting notes

We discussed the recipe import and the data model of units.
""",
    "archive/old.md": "# Old\n\nArchived sandbox notes that must never be indexed.\n",
    "clients/acme/secret.md": "# Acme\n\nClient sandbox work.\n",
    "clients/other/public.md": "# Other client\n\nA public note about zeppelins.\n",
    "stacks/ios-app.yaml": "name: iOS app\ndescription: SwiftUI, SwiftData, StoreKit 2\n"
                           "stack: [swift, swiftui]\n",
    "stacks/web-saas.yaml": "name: Web SaaS\ndescription: Next.js, Postgres, Stripe\n"
                            "stack: [typescript, nextjs, postgres]\n",
}


def make_kb(base: Path, *, config: str = CONFIG, pages: dict[str, str] | None = None) -> Path:
    root = base / "kb"
    for rel, text in (PAGES if pages is None else pages).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)
    if config:
        (root / ".solograph.yaml").write_text(config, encoding="utf-8")
    return root


def _copy(dst: Path, src: Path) -> None:
    """A copy of a corpus file or folder inside the KB: a symbolic link would leave the KB
    folder, and the index never follows one that does."""
    if src.is_dir():
        shutil.copytree(src, dst, copy_function=shutil.copy2)
    else:
        shutil.copy2(src, dst)


def layout_21ideas(corpora: Path, base: Path) -> Path:
    """The bilingual wiki as Quartz publishes it: wiki/en and wiki/ru (its links are
    [[en/...]] and [[ru/...]]), with raw/ and docs/ beside the wiki."""
    src = corpora / "wiki" / "21ideas-wiki"
    root = base / "21ideas"
    (root / "wiki").mkdir(parents=True)
    _copy(root / "wiki" / "en", src / "wiki-en")
    _copy(root / "wiki" / "ru", src / "wiki-ru")
    for name in ("raw", "docs", "README.md", "CLAUDE.md"):
        _copy(root / name, src / name)
    return root


def layout_ekgardt(corpora: Path, base: Path) -> Path:
    """The agent-kept wiki as it is, with .solograph.yaml naming knowledge/ as the wiki."""
    src = corpora / "wiki" / "ekgardt-llm-wiki"
    root = base / "ekgardt"
    root.mkdir(parents=True)
    for entry in src.iterdir():
        _copy(root / entry.name, entry)
    (root / ".solograph.yaml").write_text("kb:\n  pages: knowledge/\n", encoding="utf-8")
    return root
