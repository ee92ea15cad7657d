"""A link is resolved by its name: a resolver built from the pages and assets of that name
alone points it where one built from the whole KB does (the sync builds the small one)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from solograph.kb.resolve import Resolver, changes_with, name_of

FOLDERS = ["wiki", "wiki/en", "wiki/en/concepts", "wiki-en/concepts", "notes", "wiki/Граф"]
STEMS = ["taproot", "Taproot", "граф", "Граф", "alpha-beta", "alpha beta", "index", "x"]
EXTS = [".md", ".markdown", ".MD"]
TARGETS = [*STEMS, "concepts/taproot", "en/concepts/taproot", "../taproot", "./x",
           "wiki/x.md", "/notes/x", "img.png", "concepts/img.png", "Граф/x", "..", ".",
           "../..", "x/", "", "  taproot  ", "wiki\\x"]

pages = st.lists(st.builds(lambda f, s, e: f"{f}/{s}{e}", st.sampled_from(FOLDERS),
                           st.sampled_from(STEMS), st.sampled_from(EXTS)),
                 min_size=1, max_size=12, unique=True)
assets = st.lists(st.builds(lambda f, n: f"{f}/{n}", st.sampled_from(FOLDERS),
                            st.sampled_from(["img.png", "x.png", "taproot.pdf"])),
                  max_size=4, unique=True)


@settings(max_examples=300, deadline=None)
@given(pages, assets, st.sampled_from(TARGETS), st.integers(0, 11), st.sampled_from(["", "wiki/"]))
def test_a_resolver_of_the_links_name_resolves_as_the_whole_one(pages, assets, target, source,
                                                                 prefix):
    src = pages[source % len(pages)]
    whole = Resolver(pages, assets, pages_prefix=prefix)
    if name_of(target) in (".", ".."):  # the sync builds the whole resolver for these
        return
    names = {name_of(target)}
    small = Resolver([p for p in pages if name_of(p) in names],
                     [a for a in assets if name_of(a) in names], pages_prefix=prefix)
    assert small.resolve(target, src) == whole.resolve(target, src)


@settings(max_examples=300, deadline=None)
@given(pages, assets, st.sampled_from(TARGETS), st.integers(0, 11))
def test_a_link_points_elsewhere_only_when_a_page_of_its_name_comes(pages, assets, target,
                                                                    source):
    src, *rest = pages[source % len(pages):] + pages[:source % len(pages)]
    before = Resolver([src], assets)
    for added in rest:
        after = Resolver([src, added], assets)
        if after.resolve(target, src) != before.resolve(target, src):
            assert changes_with(target, {name_of(added)})
