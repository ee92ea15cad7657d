"""The OpenAPI document of the sources search API (GET /openapi.json): what each endpoint
takes and answers, so clients and a schema-driven fuzzer know the API without reading code."""

from __future__ import annotations

from solograph import __version__

_JSON = {"application/json": {"schema": {"type": "object"}}}
_ERROR = {"description": "an error object: error, message, hint", "content": _JSON}


def _n(most: int) -> list[dict]:
    return [{"name": name, "in": "query", "required": False,
             "description": "how many results (n and limit are the same)",
             "schema": {"type": "integer", "minimum": 1, "maximum": most}}
            for name in ("n", "limit")]


_SOURCE = {"name": "source", "in": "query", "required": False,
           "description": "only this source (youtube, producthunt, trustmrr, telegram, ...)",
           "schema": {"type": "string", "maxLength": 200}}
_COMMON = {"400": _ERROR, "401": _ERROR, "421": _ERROR, "429": _ERROR}


def document(max_results: int) -> dict:
    return {
        "openapi": "3.0.3",
        "info": {"title": "solograph sources search", "version": __version__,
                 "description": "Read-only search over the sources index, for SearXNG's "
                                "json_engine and a team. Every result carries url, title and "
                                "content first."},
        "paths": {
            "/search": {"get": {
                "summary": "Search the sources index", "operationId": "search",
                "parameters": [{"name": "q", "in": "query", "required": False,
                                "description": "the words to find",
                                "schema": {"type": "string", "maxLength": 2000}},
                               _SOURCE, *_n(max_results)],
                "responses": {"200": {"description": "results, best first", "content": _JSON},
                              **_COMMON}}},
            "/sources": {"get": {
                "summary": "What each source holds", "operationId": "sources",
                "parameters": [_SOURCE, *_n(max_results)],
                "responses": {"200": {"description": "the sources and their counts",
                                      "content": _JSON}, **_COMMON}}},
            "/health": {"get": {
                "summary": "Whether the index is readable", "operationId": "health",
                "responses": {"200": {"description": "ready", "content": _JSON},
                              "503": {"description": "not ready", "content": _JSON}}}},
            "/openapi.json": {"get": {
                "summary": "This document", "operationId": "openapi",
                "responses": {"200": {"description": "the OpenAPI document",
                                      "content": _JSON}}}},
        },
    }
