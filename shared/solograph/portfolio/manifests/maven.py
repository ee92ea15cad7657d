"""Maven: the `<dependencies>` of pom.xml (not `<dependencyManagement>`, which only pins
versions, nor plugins), named `groupId:artifactId` as Gradle's are. A pom that is not
well-formed XML is salvaged block by block with patterns."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from solograph.portfolio.manifests.model import Package

_DEV_SCOPES = frozenset({"test"})
_BLOCK = re.compile(r"<dependency>(.*?)</dependency>", re.S)
_FIELD = re.compile(r"<(groupId|artifactId|version|scope)>\s*([^<]*?)\s*</\1>")
_MANAGED = re.compile(r"<dependencyManagement>.*?(?:</dependencyManagement>|\Z)", re.S)
_PLUGINS = re.compile(r"<(plugins|pluginManagement)>.*?(?:</\1>|\Z)", re.S)


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def parse_pom(text: str, problems: list[str]) -> list[Package]:
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError, RecursionError) as exc:
        problems.append(f"invalid XML: {exc}")
        return _salvage(text)
    out: list[Package] = []
    # <project><dependencies> and each <profile><dependencies>; nothing under a plugin.
    holders = [root, *[p for p in root.iter() if _local(p.tag) == "profile"]]
    for holder in holders:
        for child in holder:
            if _local(child.tag) != "dependencies":
                continue
            for dep in child:
                if _local(dep.tag) == "dependency":
                    fields = {_local(f.tag): (f.text or "").strip() for f in dep}
                    _add(out, fields)
    return out


def _add(out: list[Package], fields: dict[str, str]) -> None:
    group, artifact = fields.get("groupId", ""), fields.get("artifactId", "")
    if not artifact:
        return
    name = f"{group}:{artifact}" if group else artifact
    out.append(Package("maven", name, fields.get("version", ""),
                       fields.get("scope", "") in _DEV_SCOPES))


def _salvage(text: str) -> list[Package]:
    text = _PLUGINS.sub("", _MANAGED.sub("", text))
    out: list[Package] = []
    for block in _BLOCK.finditer(text):
        _add(out, dict(_FIELD.findall(block.group(1))))
    return out
