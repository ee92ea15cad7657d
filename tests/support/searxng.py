"""SearXNG's `json_engine`, reproduced from its documented behaviour, to read our /search answers
the way a SearXNG instance would (SearXNG itself is not installable here).

What it reproduces (searx/engines/json_engine.py, its module documentation, and
../shared/FACTS.md section 7):

- request(): `search_url` is formatted with `{query}` (URL-encoded as `urlencode({'q': q})[2:]`),
  `{pageno}`, `{lang}`, `{time_range}` and `{safe_search}`; the engine's `headers` and
  `cookies` are added to the request; the method defaults to GET.
- response(): a status in `no_result_for_http_status` gives no results; other errors raise;
  an empty body gives no results. `results_query` is a `/`-separated path of keys matched
  recursively anywhere below the current node (list entries are walked too), and the first
  match is the result list; without it the top level must be the list. For each item the
  first match of `url_query` (prefixed with `url_prefix`) and of `title_query` are required,
  else the item is dropped; `content_query` is optional ("" when absent). Values are turned
  into strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from urllib.parse import urlencode


def _items(node: object) -> Iterator[tuple[str, object]]:
    if isinstance(node, dict):
        yield from ((str(k), v) for k, v in node.items())
    else:
        yield from ((str(i), v) for i, v in enumerate(node))  # type: ignore[arg-type]


def _iterable(node: object) -> bool:
    return not isinstance(node, str) and isinstance(node, Iterable)


def _find(node: object, path: list[str]) -> list[object]:
    if not path:
        return []
    found: list[object] = []
    for key, value in _items(node):
        if len(path) == 1:
            if key == path[0]:
                found.append(value)
            elif _iterable(value):
                found.extend(_find(value, path))
        elif _iterable(value):
            found.extend(_find(value, path[1:] if key == path[0] else path))
    return found


def query(data: object, path: str) -> list[object]:
    return _find(data, [p for p in path.split("/") if p])


def _string(value: object) -> str:
    return value if isinstance(value, str) else str(value)


class JsonEngine:
    """One engine configured like an entry of settings.yml's `engines:` list."""

    def __init__(self, settings: dict) -> None:
        assert settings["engine"] == "json_engine"
        self.s = {"method": "GET", "headers": {}, "cookies": {}, "url_prefix": "",
                  "content_query": None, "results_query": "", "lang_all": "en",
                  "no_result_for_http_status": [], "page_size": 1, "first_page_num": 1,
                  **settings}

    def request(self, text: str, *, pageno: int = 1, language: str = "all") -> dict:
        params = {"headers": {}, "cookies": {}}
        params["headers"].update(self.s["headers"])
        params["cookies"].update(self.s["cookies"])
        lang = self.s["lang_all"] if language == "all" else language[:2]
        params["url"] = self.s["search_url"].format(
            query=urlencode({"q": text})[2:], lang=lang, time_range="", safe_search="",
            pageno=(pageno - 1) * self.s["page_size"] + self.s["first_page_num"])
        params["method"] = self.s["method"]
        return params

    def response(self, status: int, body: str) -> list[dict]:
        if status in self.s["no_result_for_http_status"]:
            return []
        if status >= 400:
            raise RuntimeError(f"engine error: HTTP {status}")
        if not body:
            return []
        data = json.loads(body)
        if self.s["results_query"]:
            found = query(data, self.s["results_query"])
            if not found:
                return []
            items = found[0]
        else:
            items = data
        results = []
        for item in items:
            try:
                url = query(item, self.s["url_query"])[0]
                result = {"url": self.s["url_prefix"] + _string(url),
                          "title": _string(query(item, self.s["title_query"])[0])}
            except (IndexError, TypeError, KeyError):
                continue
            try:
                result["content"] = _string(query(item, self.s["content_query"])[0])
            except (IndexError, TypeError, KeyError, AttributeError):
                result["content"] = ""
            results.append(result)
        return results
