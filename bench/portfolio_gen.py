"""A synthetic, deterministic portfolio of git checkouts for the portfolio bench.

`generate(root, repos=, defs=, seed=)` writes `repos` git repositories under `root` holding at
least `defs` definitions in the 16 grammars the scanner reads, mixed by repository archetype
(a Python service, a TypeScript web app, a Go service, an Android app, ...), with manifests,
READMEs, ignored build output and a few untracked files. Identifiers are built from a few
hundred domain words drawn with a Zipf law, so a few words are everywhere and the tail is rare,
and spelled in each language's convention (snake_case, camelCase, PascalCase, acronyms).

Every file is syntactically valid for its grammar, and the generator counts the definitions it
writes the way the extractor reports them, so the bench can check the index against it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from bisect import bisect
from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

GENERATOR_VERSION = 4

# --------------------------------------------------------------------------- vocabulary


def _wordlist(text: str) -> list[str]:
    return text.split()

# Most common first: the Zipf draw favours the head of each list.

NOUNS = _wordlist("""
user session token cache config request response file data item event message account
order service client error key value record state context handler query result node path
payment invoice auth product price customer email report job task queue worker stream
buffer index schema table row column entry field form view model route header cookie
permission role group team project document page template widget button input filter
metric log trace span time date address profile setting option feature flag version
release build deploy image asset upload download storage bucket blob object list map
graph edge tree parser lexer lexeme batch chunk frame packet socket connection pool
channel topic subscription notification webhook callback hook plugin module package
dependency manifest registry store repository provider adapter factory builder manager
controller middleware router gateway proxy server endpoint transport protocol codec
encoder decoder serializer validator renderer formatter scheduler timer clock counter
limit quota rate window retry backoff lock mutex semaphore signal checkpoint snapshot
migration transaction cursor offset page_size discount tax cart shipment warehouse
inventory supplier vendor contract subscription_plan coupon refund ledger balance
transfer wallet card bank currency exchange quote tenant organization workspace member
invitation password credential secret certificate signature hash digest nonce salt
policy rule audit comment thread reply post feed tag category label score rank vote
search suggestion recommendation embedding vector cluster shard replica partition
leader follower election heartbeat lease quorum consensus geohash tile viewport canvas
layer sprite texture shader mesh vertex pixel palette glyph font layout theme locale
translation currency_code timezone calendar reminder schedule booking reservation slot
ticket seat venue itinerary route_plan driver vehicle fleet trip fare chargeback dunning
proration escrow idempotency tombstone watermark backfill debounce coalesce sharding
bloom hyperloglog trie rope skiplist arena slab freelist tombstone_gc compaction
""")

VERBS = _wordlist("""
get set create update delete load save fetch parse render build handle process validate
find make read write send receive init start stop open close run apply check compute
format convert resolve refresh register sync merge emit dispatch publish subscribe notify
encode decode serialize normalize sanitize authorize authenticate verify sign encrypt
decrypt compress schedule retry cancel flush reset clear track collect aggregate filter
sort map reduce transform export import attach detach enqueue dequeue allocate release
acquire invalidate prefetch hydrate reconcile rebalance throttle
""")

ADJECTIVES = _wordlist("""
active default current new old pending expired local remote cached raw valid invalid
public private internal external primary secondary async sync temp stale dirty shared
unique next previous total max min empty partial full
""")

SUFFIXES = _wordlist("""
Service Manager Handler Controller Repository Store Client Builder Factory Provider
Adapter Config Error Event Request Response Options Result View Model Cache Queue Worker
Parser Renderer Validator Listener Registry Context Helper Spec
""")

ACRONYMS = {"http": "HTTP", "json": "JSON", "url": "URL", "id": "ID", "api": "API",
            "sql": "SQL", "jwt": "JWT", "oauth": "OAuth", "csv": "CSV", "uuid": "UUID",
            "xml": "XML", "html": "HTML"}
ACRONYM_WORDS = list(ACRONYMS)

# Words that would break a grammar if they were a whole identifier somewhere.
KEYWORDS = set(_wordlist("""
import export delete new return default package yield await async select case switch try
catch throw type match fn func def end begin in is do if for loop let var val object
interface class struct enum module trait impl where when open public private internal
static final map chan range go defer const function list set filter key value index table
row column order group limit offset view field values from to and or not null true false
print self this super init sync file data time date string array protocol operator extension
template union register volatile echo
build vendor target dist env generated
"""))  # the last line: folders the scanner or .gitignore skip


def _zipf_cum(n: int, s: float) -> list[float]:
    return list(accumulate(1 / (r + 1) ** s for r in range(n)))


class Namer:
    """Identifiers from the vocabulary, spelled per language convention."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._nouns = _zipf_cum(len(NOUNS), 0.85)
        self._verbs = _zipf_cum(len(VERBS), 0.9)
        self._adjs = _zipf_cum(len(ADJECTIVES), 0.8)

    def _pick(self, words: list[str], cum: list[float]) -> str:
        return words[bisect(cum, self.rng.random() * cum[-1])]

    def noun(self) -> str:
        word = self._pick(NOUNS, self._nouns)
        return word.replace("_", " ").split()[0] if "_" in word else word

    def nouns(self, lo: int = 1, hi: int = 2) -> list[str]:
        out: list[str] = []
        for _ in range(self.rng.randint(lo, hi)):
            w = self._pick(NOUNS, self._nouns)
            if out and w == out[-1]:  # no `user_user`
                continue
            out.extend(w.split("_"))
        if self.rng.random() < 0.06:
            out.insert(self.rng.randrange(len(out) + 1), self.rng.choice(ACRONYM_WORDS))
        return out

    def safe_noun(self) -> str:
        """One noun that is a keyword in none of the grammars (a package or namespace name)."""
        while True:
            word = self.noun()
            if word not in KEYWORDS:
                return word

    def verb(self) -> str:
        return self._pick(VERBS, self._verbs)

    def adj(self) -> str:
        return self._pick(ADJECTIVES, self._adjs)

    def func_words(self) -> list[str]:
        words = [self.verb()]
        if self.rng.random() < 0.25:
            words.append(self.adj())
        words.extend(self.nouns(1, 2))
        return words

    def type_words(self) -> list[str]:
        words = []
        if self.rng.random() < 0.15:
            words.append(self.adj())
        words.extend(self.nouns(1, 2))
        if self.rng.random() < 0.6 or (len(words) == 1 and words[0] in KEYWORDS):
            words.append(self.rng.choice(SUFFIXES).lower())
        return words

    def local_words(self) -> list[str]:
        first = self.adj() if self.rng.random() < 0.3 else self.noun()
        second = self.noun()
        return [first, second] if second != first else [first, "value"]


def snake(words: list[str]) -> str:
    return "_".join(words)


def _cap(word: str, acronyms: bool) -> str:
    if acronyms and word in ACRONYMS:
        return ACRONYMS[word]
    return word[:1].upper() + word[1:]


def pascal(words: list[str], acronyms: bool = True) -> str:
    return "".join(_cap(w, acronyms) for w in words)


def camel(words: list[str], acronyms: bool = True) -> str:
    return words[0] + "".join(_cap(w, acronyms) for w in words[1:])


def screaming(words: list[str]) -> str:
    return "_".join(w.upper() for w in words)


# --------------------------------------------------------------------------- files


@dataclass
class SourceFile:
    text: str
    defs: list[tuple[str, str]]  # (name as written, kind)


@dataclass
class _Buf:
    lines: list[str] = field(default_factory=list)
    defs: list[tuple[str, str]] = field(default_factory=list)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def define(self, name: str, kind: str) -> str:
        self.defs.append((name, kind))
        return name

    def __len__(self) -> int:
        return len(self.lines)

    def done(self) -> SourceFile:
        return SourceFile("\n".join(self.lines).rstrip("\n") + "\n", self.defs)


class LanguageWriter:
    """One method per grammar: a source file of about `target` lines."""

    def __init__(self, rng: random.Random, namer: Namer) -> None:
        self.rng = rng
        self.n = namer

    # ---- shared pieces

    def sentence(self) -> str:
        words = self.n.func_words() + self.n.nouns(0, 1)
        text = " ".join(words)
        return text[:1].upper() + text[1:]

    def body_len(self) -> int:
        return self.rng.choice((2, 3, 3, 4, 5, 5, 6, 7, 8, 9, 11, 14))

    def locals_(self, style) -> str:
        return style(self.n.local_words())

    def _statements(self, count: int, lang: str, params: list[str], ind: str,
                    call_style, var_style) -> list[str]:
        out: list[str] = []
        var = None
        while len(out) < count:
            roll = self.rng.random()
            new_var = var_style(self.n.local_words())
            fn = call_style(self.n.func_words())
            a = self.rng.choice(params) if params else "0"
            b = self.rng.choice(params) if params else "1"
            if roll < 0.45 or var is None:
                out.extend(_assign(lang, ind, new_var, fn, a, b))
                var = new_var
            elif roll < 0.6:
                out.extend(_guard(lang, ind, var))
            elif roll < 0.72:
                text = ind + _comment(lang) + " " + self.sentence().lower()
                out.append(text + " */" if lang == "c" else text)
            elif roll < 0.85:
                out.extend(_loop(lang, ind, a, fn))
            else:
                out.append(ind + _call(lang, fn, a))
        return out + _return(lang, ind, var or ("0" if lang != "php" else "null"))

    def params(self, style, lo: int = 0, hi: int = 3) -> list[str]:
        seen: dict[str, None] = {}
        for _ in range(self.rng.randint(lo, hi)):
            seen.setdefault(style(self.n.local_words()), None)
        return list(seen)

    # ---- Python

    def python(self, target: int, *, test: bool = False) -> SourceFile:
        b = _Buf()
        b.add(f'"""{self.sentence()}."""', "", "from __future__ import annotations", "",
              "import logging", "from typing import Any", "",
              "logger = logging.getLogger(__name__)", "")
        while len(b) < target:
            b.add("")
            if test:
                name = b.define("test_" + snake(self.n.func_words()), "function")
                b.add(f"def {name}():")
                b.add(*self._statements(self.body_len(), "python", [], "    ", snake, snake))
                b.add("")
                continue
            if self.rng.random() < 0.4:
                cls = b.define(pascal(self.n.type_words()), "class")
                b.add(f"class {cls}:", f'    """{self.sentence()}."""', "")
                fields = self.params(snake, 1, 3)
                b.define("__init__", "method")
                b.add(f"    def __init__(self, {', '.join(fields)}):")
                b.add(*(f"        self.{f} = {f}" for f in fields))
                for _ in range(self.rng.randint(1, 6)):
                    name = b.define(snake(self.n.func_words()), "method")
                    params = self.params(snake, 0, 2)
                    if self.rng.random() < 0.15:
                        b.add("", "    @property")
                        params = []
                    else:
                        b.add("")
                    b.add(f"    def {name}({', '.join(['self', *params])}):")
                    b.add(*self._statements(self.body_len(), "python", params or ["self"],
                                            "        ", snake, snake))
            else:
                name = b.define(snake(self.n.func_words()), "function")
                params = self.params(snake)
                b.add(f"def {name}({', '.join(params)}) -> Any:", f'    """{self.sentence()}."""')
                if self.rng.random() < 0.1:
                    inner = b.define("_" + snake(self.n.func_words()), "function")
                    b.add(f"    def {inner}(item):", "        return item", "")
                b.add(*self._statements(self.body_len(), "python", params, "    ", snake, snake))
            b.add("")
        return b.done()

    # ---- TypeScript / TSX / JavaScript

    def _ts_type(self) -> str:
        return self.rng.choice(("string", "number", "boolean", "string[]",
                                "Record<string, unknown>", "Promise<void>"))

    def _ts_params(self, typed: bool) -> tuple[list[str], str]:
        names = self.params(camel)
        if not typed:
            return names, ", ".join(names)
        return names, ", ".join(f"{p}: {self._ts_type()}" for p in names)

    def typescript(self, target: int, *, tsx: bool = False, typed: bool = True) -> SourceFile:
        b = _Buf()
        lang = "ts"
        imp = camel(self.n.func_words())
        if typed:
            b.add(f'import {{ {imp} }} from "./{snake(self.n.nouns(1, 1))}";')
        else:
            b.add(f'const {{ {imp} }} = require("./{snake(self.n.nouns(1, 1))}");')
        if tsx:
            b.add('import React, { useState } from "react";')
        b.add("")
        while len(b) < target:
            roll = self.rng.random()
            if tsx and roll < 0.35:
                comp = b.define(pascal(self.n.type_words()), "function")
                props = pascal([*self.n.nouns(1, 1), "props"])
                b.define(props, "interface")
                field_ = camel(self.n.local_words())
                b.add(f"export interface {props} {{", f"  {field_}: string;",
                      f"  {camel(self.n.local_words())}?: number;", "}", "")
                state = pascal(self.n.local_words())
                b.add(f"export function {comp}(props: {props}) {{",
                      f"  const [{camel(self.n.local_words())}, set{state}] = useState(0);")
                b.add(*self._statements(self.body_len(), lang, ["props"], "  ", camel, camel)[:-1])
                b.add("  return (", f'    <div className="{snake(self.n.nouns(1, 2))}">',
                      f"      <span>{{props.{field_}}}</span>", "    </div>", "  );", "}", "")
            elif typed and roll < 0.45:
                iface = b.define(pascal(self.n.type_words()), "interface")
                b.add(f"export interface {iface} {{")
                for _ in range(self.rng.randint(1, 4)):
                    b.add(f"  {camel(self.n.local_words())}: {self._ts_type()};")
                if self.rng.random() < 0.5:
                    m = b.define(camel(self.n.func_words()), "method")
                    b.add(f"  {m}(id: string): Promise<void>;")
                b.add("}", "")
                if self.rng.random() < 0.3:
                    alias = b.define(pascal(self.n.type_words()), "type")
                    b.add(f'export type {alias} = "{self.n.noun()}" | "{self.n.noun()}";', "")
                if self.rng.random() < 0.15:
                    enum = b.define(pascal(self.n.nouns(1, 2) + ["kind"]), "enum")
                    members = {pascal([self.n.safe_noun()]) for _ in range(3)}
                    b.add(f"export enum {enum} {{ {', '.join(sorted(members))} }}", "")
            elif roll < 0.7:
                cls = b.define(pascal(self.n.type_words()), "class")
                dep = camel(self.n.local_words())
                b.add(f"export class {cls} {{")
                if typed:
                    b.add(f"  private {dep}: {pascal(self.n.type_words())};", "")
                    b.add(f"  constructor({dep}: {pascal(self.n.type_words())}) {{")
                else:
                    b.add(f"  constructor({dep}) {{")
                b.define("constructor", "method")
                b.add(f"    this.{dep} = {dep};", "  }")
                for _ in range(self.rng.randint(1, 6)):
                    m = b.define(camel(self.n.func_words()), "method")
                    names, sig = self._ts_params(typed)
                    ret = f": {self._ts_type()}" if typed else ""
                    prefix = "async " if self.rng.random() < 0.3 else ""
                    b.add("", f"  {prefix}{m}({sig}){ret} {{")
                    b.add(*self._statements(self.body_len(), lang, names or ["this"], "    ",
                                            camel, camel))
                    b.add("  }")
                b.add("}", "")
            elif roll < 0.85:
                fn = b.define(camel(self.n.func_words()), "function")
                names, sig = self._ts_params(typed)
                b.add(f"export const {fn} = ({sig}) => {{")
                b.add(*self._statements(self.body_len(), lang, names, "  ", camel, camel))
                b.add("};", "")
            else:
                fn = b.define(camel(self.n.func_words()), "function")
                names, sig = self._ts_params(typed)
                export = "export " if typed else ""
                b.add(f"{export}function {fn}({sig}) {{")
                b.add(*self._statements(self.body_len(), lang, names, "  ", camel, camel))
                b.add("}", "")
        if not typed:
            b.add("module.exports = {};")
        return b.done()

    # ---- Go

    def go(self, target: int, package: str) -> SourceFile:
        b = _Buf()
        b.add(f"// Package {package} {self.sentence().lower()}.", f"package {package}", "",
              "import (", '\t"context"', '\t"fmt"', ")", "")
        recv_type = b.define(pascal(self.n.type_words()), "struct")
        b.add(f"type {recv_type} struct {{")
        for _ in range(self.rng.randint(1, 4)):
            b.add(f"\t{camel(self.n.local_words())} string")
        b.add("}", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.12:
                iface = b.define(pascal(self.n.type_words()), "interface")
                b.add(f"type {iface} interface {{")
                for _ in range(self.rng.randint(1, 3)):
                    m = b.define(pascal(self.n.func_words()), "method")
                    b.add(f"\t{m}(ctx context.Context, id string) error")
                b.add("}", "")
            elif roll < 0.6:
                m = b.define(pascal(self.n.func_words()) if self.rng.random() < 0.7
                             else camel(self.n.func_words()), "method")
                params = self.params(camel, 0, 2)
                sig = ", ".join(["ctx context.Context", *(f"{p} string" for p in params)])
                b.add(f"func (s *{recv_type}) {m}({sig}) (string, error) {{")
                b.add(*self._statements(self.body_len(), "go", params or ["s"], "\t", camel,
                                        camel))
                b.add("}", "")
            else:
                fn = b.define(pascal(self.n.func_words()) if self.rng.random() < 0.5
                              else camel(self.n.func_words()), "function")
                params = self.params(camel, 0, 3)
                sig = ", ".join(f"{p} string" for p in params)
                b.add(f"func {fn}({sig}) string {{")
                b.add(*self._statements(self.body_len(), "go", params, "\t", camel, camel))
                b.add("}", "")
        b.add(f'var _ = fmt.Sprintf("%v", "{package}")')
        return b.done()

    # ---- Rust

    def rust(self, target: int) -> SourceFile:
        b = _Buf()
        b.add(f"//! {self.sentence()}.", "", "use std::collections::HashMap;", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.35:
                st = b.define(pascal(self.n.type_words()), "struct")
                b.add("#[derive(Debug, Clone, Default)]", f"pub struct {st} {{")
                for _ in range(self.rng.randint(1, 4)):
                    b.add(f"    pub {snake(self.n.local_words())}: String,")
                b.add("    entries: HashMap<String, u64>,", "}", "", f"impl {st} {{")
                for _ in range(self.rng.randint(1, 5)):
                    m = b.define(snake(self.n.func_words()), "method")
                    params = self.params(snake, 0, 2)
                    sig = ", ".join(["&self", *(f"{p}: &str" for p in params)])
                    b.add(f"    pub fn {m}({sig}) -> Option<String> {{")
                    b.add(*self._statements(self.body_len(), "rust", params or ["self"],
                                            "        ", snake, snake))
                    b.add("    }", "")
                b.lines[-1] = "}"
                b.add("")
            elif roll < 0.45:
                tr = b.define(pascal(self.n.type_words()), "trait")
                b.add(f"pub trait {tr} {{")
                for _ in range(self.rng.randint(1, 3)):
                    m = b.define(snake(self.n.func_words()), "method")
                    b.add(f"    fn {m}(&self, id: &str) -> Result<(), String>;")
                b.add("}", "")
            elif roll < 0.52:
                en = b.define(pascal(self.n.nouns(1, 2) + ["kind"]), "enum")
                members = sorted({pascal([self.n.safe_noun()]) for _ in range(3)})
                b.add(f"pub enum {en} {{", *(f"    {m}," for m in members), "}", "")
            else:
                fn = b.define(snake(self.n.func_words()), "function")
                params = self.params(snake, 0, 3)
                sig = ", ".join(f"{p}: &str" for p in params)
                b.add(f"pub fn {fn}({sig}) -> Option<String> {{")
                b.add(*self._statements(self.body_len(), "rust", params, "    ", snake, snake))
                b.add("}", "")
        if self.rng.random() < 0.5:
            b.define("tests", "module")
            t = b.define(snake(["it", *self.n.func_words()]), "function")
            b.add("#[cfg(test)]", "mod tests {", "    #[test]", f"    fn {t}() {{",
                  "        assert_eq!(1 + 1, 2);", "    }", "}")
        return b.done()

    # ---- Java / Kotlin

    def java(self, target: int, package: str) -> SourceFile:
        b = _Buf()
        cls = b.define(pascal(self.n.type_words()), "class")
        b.add(f"package com.acme.{package};", "", "import java.util.List;",
              "import java.util.Map;", "", f"/** {self.sentence()}. */", f"public class {cls} {{")
        dep = camel(self.n.local_words())
        dep_type = pascal(self.n.type_words())
        b.add(f"    private final {dep_type} {dep};", "")
        b.define(cls, "method")
        b.add(f"    public {cls}({dep_type} {dep}) {{", f"        this.{dep} = {dep};", "    }")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.08:
                en = b.define(pascal(self.n.nouns(1, 2) + ["status"]), "enum")
                members = sorted({screaming([self.n.safe_noun()]) for _ in range(3)})
                b.add("", f"    public enum {en} {{ {', '.join(members)} }}")
            elif roll < 0.15:
                it = b.define(pascal(self.n.type_words()) + "Listener", "interface")
                m = b.define(camel(["on", *self.n.nouns(1, 2)]), "method")
                b.add("", f"    public interface {it} {{", f"        void {m}(String id);", "    }")
            else:
                m = b.define(camel(self.n.func_words()), "method")
                params = self.params(camel, 0, 3)
                sig = ", ".join(f"String {p}" for p in params)
                vis = self.rng.choice(("public", "public", "private", "protected"))
                b.add("", f"    {vis} String {m}({sig}) {{")
                b.add(*self._statements(self.body_len(), "java", params or [dep], "        ",
                                        camel, camel))
                b.add("    }")
        b.add("}")
        return b.done()

    def kotlin(self, target: int, package: str) -> SourceFile:
        b = _Buf()
        b.add(f"package com.acme.{package}", "", "import kotlin.collections.List", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.45:
                cls = b.define(pascal(self.n.type_words()), "class")
                dep = camel(self.n.local_words())
                b.add(f"class {cls}(private val {dep}: String) {{")
                for _ in range(self.rng.randint(1, 5)):
                    m = b.define(camel(self.n.func_words()), "method")
                    params = self.params(camel, 0, 2)
                    b.add(f"    fun {m}({', '.join(f'{p}: String' for p in params)}): String? {{")
                    b.add(*self._statements(self.body_len(), "kotlin", params or [dep],
                                            "        ", camel, camel))
                    b.add("    }", "")
                b.lines[-1] = "}"
                b.add("")
            elif roll < 0.55:
                data = b.define(pascal(self.n.type_words()), "class")
                fields = self.params(camel, 1, 3)
                b.add(f"data class {data}({', '.join(f'val {f}: String' for f in fields)})", "")
            elif roll < 0.63:
                iface = b.define(pascal(self.n.type_words()), "interface")
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"interface {iface} {{", f"    fun {m}(id: String): Boolean", "}", "")
            elif roll < 0.7:
                obj = b.define(pascal(self.n.type_words()), "class")
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"object {obj} {{", f"    fun {m}(): Int = 0", "}", "")
            elif roll < 0.74:
                alias = b.define(pascal(self.n.type_words()), "type")
                b.add(f"typealias {alias} = Map<String, String>", "")
            else:
                fn = b.define(camel(self.n.func_words()), "function")
                params = self.params(camel, 0, 3)
                b.add(f"fun {fn}({', '.join(f'{p}: String' for p in params)}): String? {{")
                b.add(*self._statements(self.body_len(), "kotlin", params, "    ", camel, camel))
                b.add("}", "")
        return b.done()

    # ---- Swift

    def swift(self, target: int) -> SourceFile:
        b = _Buf()
        b.add("import Foundation", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.4:
                kind = self.rng.choice(("class", "struct", "struct"))
                cls = b.define(pascal(self.n.type_words()), kind)
                dep = camel(self.n.local_words())
                b.add(f"{'final class' if kind == 'class' else 'struct'} {cls} {{",
                      f"    let {dep}: String", "")
                if kind == "class":
                    b.define("init", "method")
                    b.add(f"    init({dep}: String) {{", f"        self.{dep} = {dep}", "    }", "")
                for _ in range(self.rng.randint(1, 5)):
                    m = b.define(camel(self.n.func_words()), "method")
                    params = self.params(camel, 0, 2)
                    sig = ", ".join(f"{p}: String" for p in params)
                    b.add(f"    func {m}({sig}) -> String? {{")
                    b.add(*self._statements(self.body_len(), "swift", params or [dep], "        ",
                                            camel, camel))
                    b.add("    }", "")
                b.lines[-1] = "}"
                b.add("")
            elif roll < 0.5:
                proto = b.define(pascal(self.n.type_words()), "protocol")
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"protocol {proto} {{", f"    func {m}(id: String) -> Bool", "}", "")
            elif roll < 0.56:
                en = b.define(pascal(self.n.nouns(1, 2) + ["kind"]), "enum")
                members = sorted({camel([self.n.safe_noun()]) for _ in range(3)})
                b.add(f"enum {en} {{", *(f"    case {m}" for m in members), "}", "")
            elif roll < 0.62:
                ext = pascal(self.n.type_words())
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"extension {ext} {{", f"    func {m}() -> Int {{", "        return 0",
                      "    }", "}", "")
            elif roll < 0.65:
                alias = b.define(pascal(self.n.type_words()), "type")
                b.add(f"typealias {alias} = [String: String]", "")
            else:
                fn = b.define(camel(self.n.func_words()), "function")
                params = self.params(camel, 0, 3)
                b.add(f"func {fn}({', '.join(f'_ {p}: String' for p in params)}) -> String? {{")
                b.add(*self._statements(self.body_len(), "swift", params, "    ", camel, camel))
                b.add("}", "")
        return b.done()

    # ---- Ruby

    def ruby(self, target: int, namespace: str) -> SourceFile:
        b = _Buf()
        mod = b.define(pascal(namespace.split("_")), "module")
        b.add("# frozen_string_literal: true", "", f"module {mod}")
        while len(b) < target:
            cls = b.define(pascal(self.n.type_words()), "class")
            b.add(f"  # {self.sentence()}.", f"  class {cls}")
            fields = self.params(snake, 1, 3)
            b.define("initialize", "method")
            b.add(f"    def initialize({', '.join(fields)})")
            b.add(*(f"      @{f} = {f}" for f in fields), "    end")
            if self.rng.random() < 0.3:
                sm = b.define(snake(self.n.func_words()), "method")
                b.add("", f"    def self.{sm}(options = {{}})", "      new(**options)", "    end")
            for _ in range(self.rng.randint(1, 6)):
                m = b.define(snake(self.n.func_words()), "method")
                params = self.params(snake, 0, 2)
                b.add("", f"    def {m}({', '.join(params)})" if params else f"    def {m}")
                b.add(*self._statements(self.body_len(), "ruby", params or ["@" + fields[0]],
                                        "      ", snake, snake))
                b.add("    end")
            b.add("  end", "")
        b.lines[-1] = "end"
        return b.done()

    # ---- C / C++

    def c(self, target: int, header: bool = False) -> SourceFile:
        b = _Buf()
        guard = screaming(self.n.nouns(1, 2)) + "_H"
        if header:
            b.add(f"#ifndef {guard}", f"#define {guard}", "")
        b.add("#include <stddef.h>", "#include <string.h>", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.15:
                st = snake(self.n.type_words())
                b.define(st, "struct")
                b.define(st + "_t", "type")
                b.add(f"typedef struct {st} {{")
                for _ in range(self.rng.randint(1, 4)):
                    b.add(f"    int {snake(self.n.local_words())};")
                b.add(f"}} {st}_t;", "")
            elif roll < 0.22:
                en = b.define(snake(self.n.nouns(1, 2) + ["kind"]), "enum")
                members = sorted({screaming([en, *self.n.nouns(1, 1)]) for _ in range(3)})
                b.add(f"enum {en} {{ {', '.join(members)} }};", "")
            elif header:
                fn = snake(self.n.func_words())
                params = self.params(snake, 1, 3)
                b.add(f"int {fn}({', '.join(f'int {p}' for p in params)});")
            else:
                fn = b.define(snake(self.n.func_words()), "function")
                params = self.params(snake, 1, 3)
                static = "static " if self.rng.random() < 0.3 else ""
                ret = self.rng.choice(("int ", "size_t ", "const char *", "void *"))
                b.add(f"{static}{ret}{fn}({', '.join(f'int {p}' for p in params)}) {{")
                b.add(*self._statements(self.body_len(), "c", params, "    ", snake, snake))
                b.add("}", "")
        if header:
            b.add("", f"#endif /* {guard} */")
        return b.done()

    def cpp(self, target: int, namespace: str) -> SourceFile:
        b = _Buf()
        ns = b.define(namespace, "module")
        b.add("#include <string>", "#include <vector>", "", f"namespace {ns} {{", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.45:
                cls = b.define(pascal(self.n.type_words()), "class")
                b.add(f"class {cls} {{", " public:")
                b.define(cls, "method")
                b.add(f"  explicit {cls}(int limit);")
                methods = []
                for _ in range(self.rng.randint(1, 4)):
                    m = b.define(pascal(self.n.func_words()), "method")
                    methods.append(m)
                    b.add(f"  std::string {m}(const std::string& id) const;")
                b.add("", " private:", "  int limit_;", "};", "")
                b.define(cls, "method")
                b.add(f"{cls}::{cls}(int limit) : limit_(limit) {{}}", "")
                for m in methods:
                    b.define(m, "method")
                    b.add(f"std::string {cls}::{m}(const std::string& id) const {{")
                    b.add(*self._statements(self.body_len(), "cpp", ["id"], "  ", pascal, snake))
                    b.add("}", "")
            elif roll < 0.55:
                st = b.define(pascal(self.n.type_words()), "struct")
                b.add(f"struct {st} {{", "  int first;", "  int second;", "};", "")
                if self.rng.random() < 0.5:
                    alias = b.define(pascal(self.n.nouns(1, 2) + ["list"]), "type")
                    b.add(f"using {alias} = std::vector<{st}>;", "")
            else:
                fn = b.define(snake(self.n.func_words()), "function")
                params = self.params(snake, 1, 3)
                b.add(f"int {fn}({', '.join(f'const std::string& {p}' for p in params)}) {{")
                b.add(*self._statements(self.body_len(), "cpp", params, "  ", snake, snake))
                b.add("}", "")
        b.add(f"}}  // namespace {ns}")
        return b.done()

    # ---- PHP

    def php(self, target: int, namespace: str) -> SourceFile:
        b = _Buf()
        b.add("<?php", "", "declare(strict_types=1);", "", f"namespace App\\{namespace};", "",
              "use App\\Models\\Model;", "")
        while len(b) < target:
            roll = self.rng.random()
            if roll < 0.6:
                cls = b.define(pascal(self.n.type_words()), "class")
                dep = camel(self.n.local_words())
                b.add(f"class {cls}", "{", f"    private ${dep};", "")
                b.define("__construct", "method")
                b.add(f"    public function __construct(${dep})", "    {",
                      f"        $this->{dep} = ${dep};", "    }")
                for _ in range(self.rng.randint(1, 5)):
                    m = b.define(camel(self.n.func_words()), "method")
                    params = self.params(camel, 0, 2)
                    b.add("", f"    public function {m}({', '.join('$' + p for p in params)})",
                          "    {")
                    b.add(*self._statements(self.body_len(), "php", params or [dep], "        ",
                                            camel, camel))
                    b.add("    }")
                b.add("}", "")
            elif roll < 0.7:
                iface = b.define(pascal(self.n.type_words()) + "Interface", "interface")
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"interface {iface}", "{", f"    public function {m}(string $id): ?string;",
                      "}", "")
            elif roll < 0.76:
                tr = b.define(pascal(self.n.type_words()) + "Trait", "trait")
                m = b.define(camel(self.n.func_words()), "method")
                b.add(f"trait {tr}", "{", f"    public function {m}(): string", "    {",
                      "        return static::class;", "    }", "}", "")
            else:
                fn = b.define(snake(self.n.func_words()), "function")
                params = self.params(camel, 0, 3)
                b.add(f"function {fn}({', '.join('$' + p for p in params)})", "{")
                b.add(*self._statements(self.body_len(), "php", params or ["argv"], "    ", snake,
                                        camel))
                b.add("}", "")
        return b.done()

    # ---- Bash, SQL, HCL

    def bash(self, target: int) -> SourceFile:
        b = _Buf()
        b.add("#!/usr/bin/env bash", f"# {self.sentence()}.", "set -euo pipefail", "")
        while len(b) < target:
            fn = b.define(snake(self.n.func_words()), "function")
            b.add(f"function {fn} {{" if self.rng.random() < 0.3 else f"{fn}() {{")
            b.add(*self._statements(self.body_len(), "bash", ["1"], "  ", snake, snake))
            b.add("}", "")
        b.add('main() {\n  echo "usage: $0"\n}\n', 'main "$@"')
        b.define("main", "function")
        return b.done()

    def sql(self, target: int) -> SourceFile:
        b = _Buf()
        b.add(f"-- {self.sentence()}.", "")
        while len(b) < target:
            table = snake(self.n.nouns(2, 2)) + "s"
            if self.rng.random() < 0.2:
                table = f"{self.rng.choice(('billing', 'app', 'audit'))}.{table}"
            b.define(table.rsplit(".", 1)[-1], "table")
            b.add(f"CREATE TABLE {table} (", "    id BIGINT PRIMARY KEY,")
            cols = sorted({snake([self.n.noun(), self.rng.choice(("id", "name", "count", "at",
                                                                   "status", "total"))])
                           for _ in range(self.rng.randint(2, 8))} - {"id"})
            for col in cols:
                b.add(f"    {col} {self.rng.choice(('TEXT', 'INTEGER', 'TIMESTAMP', 'NUMERIC'))},")
            b.add("    created_at TIMESTAMP NOT NULL", ");", "")
            if cols and self.rng.random() < 0.5:
                short = table.rsplit(".", 1)[-1]
                index = b.define(f"idx_{short}_{cols[0]}", "index")
                b.add(f"CREATE INDEX {index} ON {table} ({cols[0]});", "")
            if self.rng.random() < 0.25:
                view = snake([self.n.adj(), *self.n.nouns(1, 2)])
                b.define(view, "view")
                b.add(f"CREATE VIEW {view} AS", f"SELECT id, created_at FROM {table}",
                      "WHERE created_at > CURRENT_DATE;", "")
        return b.done()

    def hcl(self, target: int) -> SourceFile:
        b = _Buf()
        b.add(f"# {self.sentence()}.", "")
        while len(b) < target:
            roll = self.rng.random()
            name = snake(self.n.nouns(1, 3))
            if roll < 0.5:
                kind = self.rng.choice(("aws_s3_bucket", "aws_iam_role", "aws_lambda_function",
                                        "aws_sqs_queue", "google_storage_bucket"))
                b.define(name, "resource")
                b.add(f'resource "{kind}" "{name}" {{', f'  name = "{name.replace("_", "-")}"',
                      "  tags = {", f'    team = "{self.n.noun()}"', "  }", "}", "")
            elif roll < 0.75:
                b.define(name, "variable")
                b.add(f'variable "{name}" {{', "  type    = string",
                      f'  default = "{self.n.noun()}"', "}", "")
            elif roll < 0.9:
                b.define(name, "module")
                b.add(f'module "{name}" {{', f'  source = "./modules/{self.n.noun()}"', "}", "")
            else:
                b.define(name, "output")
                b.add(f'output "{name}" {{', f"  value = var.{name}", "}", "")
        return b.done()


# Per-language statement shapes. Only the grammar matters: nothing here is ever run.


def _comment(lang: str) -> str:
    return {"python": "#", "ruby": "#", "bash": "#", "c": "/*"}.get(lang, "//")


def _assign(lang: str, ind: str, v: str, fn: str, a: str, b: str) -> list[str]:
    if lang == "php":
        return [f"{ind}${v} = {fn}(${a}, ${b});"]
    if lang == "bash":
        return [f'{ind}local {v}="${{{a}:-{fn}}}"']
    return [ind + {
        "python": f"{v} = {fn}({a}, {b})",
        "ruby": f"{v} = {fn}({a}, {b})",
        "ts": f"const {v} = {fn}({a}, {b});",
        "go": f"{v} := {fn}({a}, {b})",
        "rust": f"let {v} = {fn}({a}, {b});",
        "java": f"String {v} = {fn}({a}, {b});",
        "kotlin": f"val {v} = {fn}({a}, {b})",
        "swift": f"let {v} = {fn}({a}, {b})",
        "c": f"int {v} = {fn}({a}, {b});",
        "cpp": f"auto {v} = {fn}({a}, {b});",
    }[lang]]


def _guard(lang: str, ind: str, v: str) -> list[str]:
    i2 = ind + ("\t" if lang == "go" else "  " if lang in ("ts", "cpp", "bash", "ruby")
                else "    ")
    return {
        "python": [f"{ind}if {v} is None:", f"{i2}return None"],
        "ruby": [f"{ind}return nil if {v}.nil?"],
        "ts": [f"{ind}if (!{v}) {{", f"{i2}return null;", f"{ind}}}"],
        "go": [f"{ind}if {v} == nil {{", f"{i2}return nil", f"{ind}}}"],
        "rust": [f"{ind}if {v}.is_empty() {{", f"{i2}return None;", f"{ind}}}"],
        "java": [f"{ind}if ({v} == null) {{", f"{i2}return null;", f"{ind}}}"],
        "kotlin": [f"{ind}if ({v} == null) {{", f"{i2}return null", f"{ind}}}"],
        "swift": [f"{ind}if {v} == nil {{", f"{i2}return nil", f"{ind}}}"],
        "c": [f"{ind}if ({v} == 0) {{", f"{i2}return 0;", f"{ind}}}"],
        "cpp": [f"{ind}if (!{v}) {{", f"{i2}return {{}};", f"{ind}}}"],
        "php": [f"{ind}if (${v} === null) {{", f"{i2}return null;", f"{ind}}}"],
        "bash": [f'{ind}if [[ -z "${{{v}}}" ]]; then', f"{i2}return 1", f"{ind}fi"],
    }[lang]


def _loop(lang: str, ind: str, a: str, fn: str) -> list[str]:
    i2 = ind + ("\t" if lang == "go" else "  " if lang in ("ts", "cpp", "bash", "ruby")
                else "    ")
    return {
        "python": [f"{ind}for item in {a}:", f"{i2}{fn}(item)"],
        "ruby": [f"{ind}Array({a}).each do |item|", f"{i2}{fn}(item)", f"{ind}end"],
        "ts": [f"{ind}for (const item of [{a}]) {{", f"{i2}{fn}(item);", f"{ind}}}"],
        "go": [f"{ind}for _, item := range []string{{{a}}} {{", f"{i2}{fn}(item)", f"{ind}}}"],
        "rust": [f"{ind}for item in [{a}].iter() {{", f"{i2}{fn}(item);", f"{ind}}}"],
        "java": [f"{ind}for (String item : List.of({a})) {{", f"{i2}{fn}(item);", f"{ind}}}"],
        "kotlin": [f"{ind}for (item in listOf({a})) {{", f"{i2}{fn}(item)", f"{ind}}}"],
        "swift": [f"{ind}for item in [{a}] {{", f"{i2}{fn}(item)", f"{ind}}}"],
        "c": [f"{ind}for (size_t i = 0; i < {a}; i++) {{", f"{i2}{fn}(i);", f"{ind}}}"],
        "cpp": [f"{ind}for (const auto& item : {{{a}}}) {{", f"{i2}{fn}(item);", f"{ind}}}"],
        "php": [f"{ind}foreach ((array) ${a} as $item) {{", f"{i2}{fn}($item);", f"{ind}}}"],
        "bash": [f'{ind}for item in "$@"; do', f'{i2}{fn} "$item"', f"{ind}done"],
    }[lang]


def _call(lang: str, fn: str, a: str) -> str:
    if lang == "php":
        return f"{fn}(${a});"
    if lang == "bash":
        return f'{fn} "${{{a}}}"'
    end = "" if lang in ("python", "ruby", "go", "kotlin", "swift") else ";"
    return f"{fn}({a}){end}"


def _return(lang: str, ind: str, v: str) -> list[str]:
    if lang == "php":
        return [f"{ind}return ${v};" if not v.startswith(("null", "$")) else f"{ind}return {v};"]
    if lang == "bash":
        return [f'{ind}echo "${{{v}}}"' if not v.isdigit() else f"{ind}return {v}"]
    if lang == "ruby":
        return [f"{ind}{v}"]
    end = "" if lang in ("python", "go", "kotlin", "swift") else ";"
    return [f"{ind}return {v}{end}"]


# --------------------------------------------------------------------------- repositories

# Archetype: (weight, [(language, share)], manifests writer key)
ARCHETYPES: dict[str, tuple[float, list[tuple[str, float]]]] = {
    "python-service": (0.18, [("python", 0.78), ("sql", 0.08),
                              ("bash", 0.07), ("hcl", 0.07)]),
    "web-app": (0.14, [("typescript", 0.55), ("tsx", 0.35), ("javascript", 0.10)]),
    "node-api": (0.08, [("javascript", 0.45), ("typescript", 0.45), ("sql", 0.05),
                        ("bash", 0.05)]),
    "go-service": (0.12, [("go", 0.85), ("sql", 0.07), ("hcl", 0.05), ("bash", 0.03)]),
    "rust-crate": (0.08, [("rust", 0.95), ("bash", 0.05)]),
    "jvm-backend": (0.08, [("java", 0.65), ("kotlin", 0.30), ("sql", 0.05)]),
    "android-app": (0.06, [("kotlin", 0.75), ("java", 0.25)]),
    "ios-app": (0.06, [("swift", 0.95), ("bash", 0.05)]),
    "rails-app": (0.05, [("ruby", 0.75), ("javascript", 0.15), ("sql", 0.10)]),
    "native-lib": (0.06, [("c", 0.45), ("cpp", 0.50), ("bash", 0.05)]),
    "php-site": (0.05, [("php", 0.80), ("javascript", 0.15), ("sql", 0.05)]),
    "infra": (0.04, [("hcl", 0.60), ("bash", 0.25), ("python", 0.15)]),
}
REPO_SUFFIXES = {"python-service": "service", "web-app": "web", "node-api": "api",
                 "go-service": "svc", "rust-crate": "rs", "jvm-backend": "backend",
                 "android-app": "android", "ios-app": "ios", "rails-app": "rails",
                 "native-lib": "native", "php-site": "site", "infra": "infra"}


def file_lines(rng: random.Random) -> int:
    """50-400 lines, most files short, a few long."""
    return int(min(400, max(50, rng.lognormvariate(4.95, 0.45))))


@dataclass
class RepoPlan:
    name: str
    archetype: str
    quota: int  # definitions to write


@dataclass
class GeneratedRepo:
    name: str
    archetype: str
    files: dict[str, SourceFile] = field(default_factory=dict)  # rel -> source
    extra: dict[str, str] = field(default_factory=dict)  # manifests, docs, ignored files
    untracked: set[str] = field(default_factory=set)


def plan_repos(rng: random.Random, repos: int, defs: int) -> list[RepoPlan]:
    names: set[str] = set()
    archetypes = list(ARCHETYPES)
    weights = [ARCHETYPES[a][0] for a in archetypes]
    chosen = [archetypes[i % len(archetypes)] for i in range(min(repos, len(archetypes)))]
    chosen += rng.choices(archetypes, weights=weights, k=repos - len(chosen))
    sizes = [rng.lognormvariate(0, 0.7) for _ in range(repos)]
    scale = defs / sum(sizes)
    plans = []
    namer = Namer(rng)
    for arch, size in zip(chosen, sizes, strict=True):
        while True:
            words = namer.nouns(1, 2)[:2]
            name = "-".join([*words, REPO_SUFFIXES[arch]])
            if name not in names:
                names.add(name)
                break
        plans.append(RepoPlan(name, arch, max(60, round(size * scale))))
    return plans


def _ident(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum()) or "app"


def build_repo(rng: random.Random, plan: RepoPlan) -> GeneratedRepo:
    namer = Namer(rng)
    w = LanguageWriter(rng, namer)
    repo = GeneratedRepo(plan.name, plan.archetype)
    mix = [(lang, share) for lang, share in ARCHETYPES[plan.archetype][1] if share > 0]
    langs = [m[0] for m in mix]
    shares = [m[1] for m in mix]
    pkg = _ident(plan.name.split("-")[0])
    if pkg in KEYWORDS:
        pkg += "app"
    written = 0
    used: set[str] = set()

    def unique(rel: str) -> str:
        base, dot, ext = rel.rpartition(".")
        n = 2
        while rel in used:
            rel = f"{base}_{n}{dot}{ext}"
            n += 1
        used.add(rel)
        return rel

    while written < plan.quota:
        lang = rng.choices(langs, weights=shares)[0]
        target = file_lines(rng)
        stem = snake(namer.nouns(1, 2))
        area = namer.safe_noun()
        if lang == "python":
            test = plan.archetype == "python-service" and rng.random() < 0.15
            rel = f"tests/test_{stem}.py" if test else f"src/{pkg}/{area}/{stem}.py"
            src = w.python(target, test=test)
        elif lang in ("typescript", "tsx", "javascript"):
            ext = {"typescript": "ts", "tsx": "tsx", "javascript": "js"}[lang]
            folder = "src/components" if lang == "tsx" else f"src/{area}"
            fname = pascal(stem.split("_"), False) if lang == "tsx" else camel(stem.split("_"),
                                                                               False)
            rel = f"{folder}/{fname}.{ext}"
            src = w.typescript(target, tsx=lang == "tsx", typed=lang != "javascript")
        elif lang == "go":
            rel = f"internal/{area}/{stem}.go"
            src = w.go(target, _ident(area))
        elif lang == "rust":
            rel = f"src/{area}/{stem}.rs" if rng.random() < 0.7 else f"crates/{area}/src/lib.rs"
            src = w.rust(target)
        elif lang == "java":
            rel = f"src/main/java/com/acme/{_ident(area)}/{pascal(stem.split('_'), False)}.java"
            src = w.java(target, _ident(area))
        elif lang == "kotlin":
            rel = f"app/src/main/kotlin/com/acme/{_ident(area)}/{pascal(stem.split('_'), False)}.kt"
            src = w.kotlin(target, _ident(area))
        elif lang == "swift":
            rel = f"Sources/{pascal([pkg], False)}/{pascal(stem.split('_'), False)}.swift"
            src = w.swift(target)
        elif lang == "ruby":
            folder = rng.choice(("app/models", "app/services", "lib"))
            rel = f"{folder}/{stem}.rb"
            src = w.ruby(target, pkg)
        elif lang == "c":
            header = rng.random() < 0.2
            rel = f"include/{stem}.h" if header else f"src/{stem}.c"
            src = w.c(target, header=header)
        elif lang == "cpp":
            header = rng.random() < 0.15
            rel = f"include/{stem}.hpp" if header else f"src/{stem}.cpp"
            src = w.cpp(target, _ident(pkg))
        elif lang == "php":
            rel = f"src/{pascal([area], False)}/{pascal(stem.split('_'), False)}.php"
            src = w.php(target, pascal([area], False))
        elif lang == "bash":
            rel = f"scripts/{stem.replace('_', '-')}.sh"
            src = w.bash(min(target, 120))
        elif lang == "sql":
            rel = f"db/migrations/{len(used):04d}_{stem}.sql"
            src = w.sql(target)
        else:  # hcl
            rel = f"infra/{stem}.tf"
            src = w.hcl(target)
        rel = unique(rel)
        repo.files[rel] = src
        written += len(src.defs)

    _add_project_files(rng, namer, repo, pkg)
    # A few work-in-progress files that were never committed: the scan must still see them.
    sources = sorted(repo.files)
    for rel in rng.sample(sources, k=min(len(sources), rng.randint(0, 3))):
        repo.untracked.add(rel)
    return repo


def _add_project_files(rng: random.Random, namer: Namer, repo: GeneratedRepo, pkg: str) -> None:
    e = repo.extra
    arch = repo.archetype
    deps = sorted({snake(namer.nouns(1, 1)).replace("_", "-") for _ in range(rng.randint(3, 9))})
    e["README.md"] = (f"# {repo.name}\n\n{' '.join(namer.func_words())} for the "
                      f"{namer.noun()} team.\n\n## Development\n\nSee docs/.\n")
    e["docs/architecture.md"] = "# Architecture\n\n" + "\n".join(
        f"- {' '.join(namer.func_words())}" for _ in range(20)) + "\n"
    ignore = ["node_modules/", "dist/", "build/", "target/", "__pycache__/", "*.log", ".env",
              "generated/"]
    e[".gitignore"] = "\n".join(ignore) + "\n"
    # Build output that git ignores: the scan must not read it.
    e["generated/client.ts"] = "export function generatedClient() { return 1; }\n" * 40
    if arch in ("python-service", "infra"):
        e["pyproject.toml"] = (f'[project]\nname = "{repo.name}"\nversion = "0.1.0"\n'
                               "dependencies = [\n" + "".join(f'  "{d}>=1.0",\n' for d in deps)
                               + ']\n\n[project.optional-dependencies]\ndev = ["pytest>=8"]\n')
        e["requirements-dev.txt"] = "pytest==8.2.0\nruff==0.6.0\n"
    if arch in ("web-app", "node-api", "rails-app", "php-site"):
        e["package.json"] = json.dumps({
            "name": repo.name, "version": "1.0.0", "private": True,
            "dependencies": {d: f"^{rng.randint(1, 9)}.{rng.randint(0, 20)}.0" for d in deps},
            "devDependencies": {"typescript": "^5.4.0", "eslint": "^9.0.0"}}, indent=2) + "\n"
        e["node_modules/left-pad/index.js"] = "function leftPad(s) { return s; }\n" * 30
    if arch == "go-service":
        e["go.mod"] = (f"module github.com/acme/{repo.name}\n\ngo 1.22\n\nrequire (\n"
                       + "".join(f"\tgithub.com/acme/{d} v1.{i}.0\n" for i, d in enumerate(deps))
                       + ")\n")
    if arch == "rust-crate":
        e["Cargo.toml"] = (f'[package]\nname = "{repo.name}"\nversion = "0.1.0"\n'
                           'edition = "2021"\n\n[dependencies]\n'
                           + "".join(f'{d} = "1.{i}"\n' for i, d in enumerate(deps)))
        e["target/debug/build.rs"] = "fn built() {}\n" * 30
    if arch in ("jvm-backend", "android-app"):
        e["build.gradle.kts"] = ("plugins {\n    kotlin(\"jvm\") version \"1.9.0\"\n}\n\n"
                                 "dependencies {\n" + "".join(
                                     f'    implementation("com.acme:{d}:1.{i}.0")\n'
                                     for i, d in enumerate(deps)) + "}\n")
    if arch == "ios-app":
        e["Package.swift"] = (
            "// swift-tools-version:5.9\nimport PackageDescription\n\n"
            f'let package = Package(\n    name: "{pascal([pkg], False)}",\n    dependencies: [\n'
            + "".join(f'        .package(url: "https://github.com/acme/{d}.git", '
                      f'from: "1.{i}.0"),\n' for i, d in enumerate(deps)) + "    ]\n)\n")
    if arch == "rails-app":
        e["Gemfile"] = ('source "https://rubygems.org"\n\n'
                        + "".join(f'gem "{d}", "~> 1.{i}"\n' for i, d in enumerate(deps)))
    if arch == "php-site":
        e["composer.json"] = json.dumps({"name": f"acme/{repo.name}", "require": {
            f"acme/{d}": "^1.0" for d in deps}}, indent=2) + "\n"
    if arch == "native-lib":
        e["CMakeLists.txt"] = (f"cmake_minimum_required(VERSION 3.20)\nproject({pkg})\n"
                               f"add_library({pkg} src/*.c src/*.cpp)\n")


GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                    *args], cwd=cwd, check=True, env=env, capture_output=True)


def write_repo(root: Path, repo: GeneratedRepo) -> None:
    base = root / repo.name
    base.mkdir(parents=True)
    _git(base, "init", "-q")
    for rel, text in [*((r, s.text) for r, s in repo.files.items()), *repo.extra.items()]:
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    tracked = [r for r in [*repo.files, *repo.extra]
               if r not in repo.untracked and not _ignored(r)]
    for i in range(0, len(tracked), 500):
        _git(base, "add", "--", *tracked[i:i + 500])
    _git(base, "commit", "-q", "-m", "initial import")


def _ignored(rel: str) -> bool:
    return rel.split("/")[0] in ("node_modules", "generated", "target", "dist", "build")


def generate(root: Path, *, repos: int, defs: int, seed: int) -> dict:
    """Write the portfolio under `root` (which must not exist); returns its catalog."""
    rng = random.Random(seed)
    plans = plan_repos(rng, repos, defs)
    catalog: dict = {"version": GENERATOR_VERSION, "repos": [], "definitions": 0, "files": 0,
                     "lines": 0, "bytes": 0, "languages": Counter()}
    root.mkdir(parents=True)
    for i, plan in enumerate(plans):
        repo = build_repo(random.Random(seed * 1_000_003 + i), plan)
        write_repo(root, repo)
        names: list[list[str]] = []
        for rel, src in sorted(repo.files.items()):
            catalog["files"] += 1
            catalog["lines"] += src.text.count("\n")
            catalog["bytes"] += len(src.text.encode())
            catalog["languages"][_lang_of(rel)] += 1
            for name, kind in src.defs:
                names.append([name, kind, rel])
        catalog["definitions"] += len(names)
        catalog["repos"].append({"name": repo.name, "archetype": repo.archetype,
                                 "files": len(repo.files), "definitions": len(names),
                                 "names": names})
    return catalog


def _lang_of(rel: str) -> str:
    return rel.rsplit(".", 1)[-1]
