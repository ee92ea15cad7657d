"""One page: frontmatter, title, heading sections and links outside code."""

from __future__ import annotations

from solograph.kb.markdown import MAX_SECTION, parse


def test_frontmatter_fields():
    page = parse("---\ntitle: Recipe box\ndescription: The app.\ntags: [a, b]\n"
                 "aliases: [recipes, cookbook]\nlanguage: EN\n---\n# Other\n\nbody\n", "x.md")
    assert (page.title, page.description, page.tags, page.aliases, page.language) == \
        ("Recipe box", "The app.", ["a", "b"], ["recipes", "cookbook"], "en")
    assert page.problem == ""
    assert parse("---\ntags: a, b c\naliases: One Two\n---\nx", "x.md").tags == ["a", "b", "c"]
    assert parse("---\naliases: One Two\n---\nx", "x.md").aliases == ["One Two"]


def test_title_falls_back_to_the_first_h1_then_the_file_name():
    assert parse("intro\n# Heading One\n\ntext", "a/b.md").title == "Heading One"
    assert parse("no heading", "a/some-page.md").title == "some-page"


def test_broken_frontmatter_keeps_the_body_and_says_what_is_wrong():
    page = parse("---\ntitle: [unclosed\n---\n# Body title\n\nквазар\n", "x.md")
    assert page.problem.startswith("frontmatter: invalid YAML at line")
    assert page.title == "Body title" and "квазар" in page.body
    unclosed = parse("---\ntitle: x\n\n# Never closed\n", "x.md")
    assert "never closed" in unclosed.problem and "Never closed" in unclosed.body
    assert "not a mapping" in parse("---\n- a\n---\nbody", "x.md").problem


def test_sections_carry_heading_paths_and_file_lines():
    text = "# Recipe box\n\nintro\n\n## Data model\n\nmodel\n\n### Units\n\ngrams\n\n## Import\n"
    page = parse(text, "r.md")
    assert [(s.heading, s.line) for s in page.sections] == [
        ("Recipe box", 1), ("Recipe box > Data model", 5),
        ("Recipe box > Data model > Units", 9), ("Recipe box > Import", 13)]
    assert page.sections[2].text == "grams"


def test_long_sections_are_cut_between_paragraphs():
    paragraph = ("word " * 50).strip()
    page = parse("## Long\n\n" + "\n\n".join([paragraph] * 30), "l.md")
    assert len(page.sections) > 3
    assert all(len(s.text) <= MAX_SECTION + 300 for s in page.sections)
    assert {s.heading for s in page.sections} == {"Long"}


def test_every_link_form_outside_code():
    text = ("See [[slug]], [[slug2|label]], [[path/slug3#Heading|label 3]] and ![[img.png]].\n"
            "```\n[[in-fence]]\n```\n~~~~\n[[in-tilde]]\n~~~~\n"
            "Inline `[[in-code]]` and ``[[double]]`` are code; [[after-code]] is not.\n"
            "# Heading with [[heading-link]]\n"
            "| [[table\\|cell]] | x |\n")
    page = parse(text, "p.md")
    found = [(x.target, x.heading, x.label, x.embed, x.line) for x in page.links]
    assert found == [
        ("slug", "", "", False, 1), ("slug2", "", "label", False, 1),
        ("path/slug3", "Heading", "label 3", False, 1), ("img.png", "", "", True, 1),
        ("after-code", "", "", False, 8), ("heading-link", "", "", False, 9),
        ("table", "", "cell", False, 10)]
    assert page.links[1].context.startswith("See slug, label, label 3")


def test_frontmatter_offsets_the_line_numbers():
    page = parse("---\ntitle: t\n---\n\n[[x]]\n", "p.md")
    assert page.links[0].line == 5
