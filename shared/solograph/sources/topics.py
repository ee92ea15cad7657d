"""Topic tags by keyword: a video gets a tag when the tag's keywords occur often enough in its
title (each hit counts double), description and transcript.

The keywords live in the `topics` table, seeded once from DEFAULT_TOPICS; a user adds more with
`solograph sources topic TAG KEYWORD...`, and every stored video is tagged again from the stems
already in the index (nothing is fetched again). Matching is on stems, so "pricing" matches
"priced" and "цены" matches "цена"; a keyword of several words matches them in sequence.
"""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery
from solograph.store import get_meta, set_meta, transaction
from solograph.text.tokens import index_text

MIN_SCORE = 3  # a title hit plus one more mention, or three mentions
MAX_TAGS = 5
TITLE_WEIGHT = 2
SEEDED_KEY = "topics_seeded"

DEFAULT_TOPICS: dict[str, tuple[str, ...]] = {
    "ai": ("ai", "artificial intelligence", "machine learning", "neural", "gpt", "chatgpt",
           "нейросеть", "искусственный интеллект"),
    "llm": ("llm", "language model", "prompt", "claude", "openai", "anthropic", "fine tuning"),
    "agents": ("agent", "agentic", "mcp", "tool calling", "агент"),
    "coding": ("code", "coding", "programming", "developer", "cursor", "github", "vibe coding",
               "программирование", "разработка"),
    "saas": ("saas", "subscription", "software as a service", "b2b"),
    "pricing": ("pricing", "price", "tier", "paywall", "freemium", "discount", "цена", "тариф"),
    "revenue": ("revenue", "mrr", "arr", "profit", "income", "выручка", "доход"),
    "marketing": ("marketing", "ads", "advertising", "funnel", "conversion", "маркетинг",
                  "реклама"),
    "seo": ("seo", "search engine", "keyword", "backlink", "google ranking"),
    "growth": ("growth", "viral", "retention", "churn", "acquisition", "рост"),
    "distribution": ("distribution", "audience", "newsletter", "twitter", "tiktok", "youtube"),
    "content": ("content", "video", "podcast", "blog", "creator", "контент"),
    "community": ("community", "discord", "members", "сообщество"),
    "startup": ("startup", "founder", "cofounder", "idea", "mvp", "стартап", "основатель"),
    "fundraising": ("fundraising", "investor", "vc", "venture", "seed round", "valuation",
                    "инвестор"),
    "indie": ("indie hacker", "solopreneur", "bootstrap", "side project", "solo founder"),
    "product": ("product", "feature", "user feedback", "roadmap", "onboarding", "продукт"),
    "design": ("design", "ux", "ui", "figma", "landing page", "дизайн"),
    "mobile": ("mobile", "ios", "android", "app store", "мобильный"),
    "nocode": ("no code", "nocode", "zapier", "bubble", "webflow", "automation"),
    "ecommerce": ("ecommerce", "shopify", "store", "dropshipping", "amazon"),
    "launch": ("launch", "product hunt", "waitlist", "beta", "запуск"),
}


def phrase_stems(keyword: str) -> str:
    return index_text(keyword)


def seed_topics(conn: sqlite3.Connection) -> None:
    """Fill the topics table with DEFAULT_TOPICS once; later edits by the user are kept."""
    if get_meta(conn, SEEDED_KEY) is not None:
        return
    with transaction(conn):
        conn.executemany("INSERT OR IGNORE INTO topics (tag, keyword) VALUES (?, ?)",
                         [(tag, kw) for tag, kws in DEFAULT_TOPICS.items() for kw in kws])
        set_meta(conn, SEEDED_KEY, "1")


def load_topics(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """tag -> the stems of each of its keywords."""
    out: dict[str, list[str]] = {}
    for tag, keyword in conn.execute("SELECT tag, keyword FROM topics ORDER BY tag, keyword"):
        stems = phrase_stems(keyword)
        if stems:
            out.setdefault(tag, []).append(stems)
    return out


def _padded(stems: str) -> str:
    """Stems with doubled spaces, so that str.count sees back-to-back repeats of a keyword."""
    return " " + "  ".join(stems.split()) + " "


def _count(padded: str, phrase: str) -> int:
    return padded.count(_padded(phrase))


def tag_stems(title_stems: str, text_stems: str, topics: dict[str, list[str]]) -> dict[str, float]:
    """The tags a video earns: {tag: score}, best first, at most MAX_TAGS."""
    title, text = _padded(title_stems), _padded(text_stems)
    scores = {}
    for tag, phrases in topics.items():
        score = sum(TITLE_WEIGHT * _count(title, p) + _count(text, p) for p in phrases)
        if score >= MIN_SCORE:
            scores[tag] = float(score)
    best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_TAGS]
    return dict(best)


def tag_text(title: str, text: str, topics: dict[str, list[str]]) -> dict[str, float]:
    return tag_stems(index_text(title), index_text(text), topics)


def add_topic(conn: sqlite3.Connection, tag: str, keywords: list[str]) -> dict:
    """Add keywords to a tag (new or existing), then tag every stored video again."""
    tag = tag.strip().lower()
    keywords = [k.strip() for k in keywords if k.strip()]
    if not tag or not keywords:
        raise BadQuery("a topic needs a tag and at least one keyword",
                       hint='solograph sources topic pricing "price tiers" paywall')
    if not all(phrase_stems(k) for k in keywords):
        raise BadQuery("every keyword needs letters or digits")
    with transaction(conn):
        conn.executemany("INSERT OR IGNORE INTO topics (tag, keyword) VALUES (?, ?)",
                         [(tag, k) for k in keywords])
    return {"tag": tag, "keywords": keywords, "videos_tagged": retag_all(conn)}


def set_tags(conn: sqlite3.Connection, video: str, tags: dict[str, float]) -> None:
    conn.execute("DELETE FROM video_tags WHERE video = ?", (video,))
    conn.executemany("INSERT INTO video_tags (video, tag, score) VALUES (?, ?, ?)",
                     [(video, tag, score) for tag, score in tags.items()])


def retag_all(conn: sqlite3.Connection) -> int:
    """Tag every stored video again from the stems in the index; returns videos tagged."""
    topics = load_topics(conn)
    tagged = 0
    with transaction(conn):
        for vid, title, description in conn.execute(
                "SELECT video, title, description FROM videos").fetchall():
            text = " ".join(r[0] for r in conn.execute(
                "SELECT words FROM documents WHERE video = ? ORDER BY id", (vid,)))
            tags = tag_stems(index_text(title), f"{index_text(description)} {text}", topics)
            set_tags(conn, vid, tags)
            tagged += bool(tags)
    return tagged
