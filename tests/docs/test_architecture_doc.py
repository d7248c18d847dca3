"""docs/architecture.md names only what exists: every function, class and file in `code`, every link.

A backticked span is checked when it is
- a path (`shared/dreamchat/keys.py`, `functions/*/handler.py`, `infra/`): it must exist (a glob must match);
- a dotted name: `dreamchat.services.chat.ChatService.respond` (any importable module first), or
  `ChatService.respond` (the first part a class or function defined in exactly one `dreamchat` module);
  a trailing `(...)` is ignored;
- a setting, `DREAMCHAT_<FIELD>`: a field of `Settings`;
- a single CamelCase word (`ChatService`, `TopicEnded`): a class defined in one `dreamchat` module, or
  a name the code quotes (`"TopicEnded"`) in shared/dreamchat or infra.
Spans with spaces or `<...>` placeholders are prose or patterns, not names.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import dreamchat
from dreamchat.config import Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"

SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FILE_SUFFIXES = ("py", "md", "toml", "json", "lock", "js", "html", "css", "txt", "sh", "yml", "yaml")
PATH = re.compile(r"^[\w.-]+(/[\w.*-]+)*/?$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
CALL = re.compile(r"^([\w.]+)\(.*\)$")
SETTING = re.compile(r"^DREAMCHAT_[A-Z0-9_]+$")
CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")  # ChatService, Settings, TopicEnded
SOURCES = [ROOT / "shared" / "dreamchat", ROOT / "infra"]


def spans(text: str) -> list[str]:
    """Every backticked span outside fenced code blocks."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return SPAN.findall(prose)


def kind(span: str) -> str | None:
    """The kind of name a span is: "path", "name", "setting", "word", or None for prose and patterns."""
    span = CALL.sub(r"\1", span)
    if "<" in span or " " in span:
        return None
    if SETTING.match(span):
        return "setting"
    if PATH.match(span) and ("/" in span or span.rsplit(".", 1)[-1] in FILE_SUFFIXES):
        return "path"
    if DOTTED.match(span):
        return "name"
    if CAMEL.match(span):
        return "word"
    return None


def problem(span: str) -> str | None:
    """Why the span does not name something that exists, or None when it does."""
    found = kind(span)
    if found == "path":
        matches = list(ROOT.glob(span.rstrip("/"))) if "*" in span else [ROOT / span]
        return None if any(m.exists() for m in matches) else "no such file"
    if found == "setting":
        field = span.removeprefix("DREAMCHAT_").lower()
        return None if field in Settings.model_fields else "no such setting"
    if found == "name":
        return _resolve(CALL.sub(r"\1", span))
    if found == "word":  # a class of ours, or a name the code spells out (an event, a rule, a namespace)
        span = CALL.sub(r"\1", span)
        if len(_defined_in_dreamchat().get(span, [])) == 1 or f'"{span}"' in _source_text():
            return None
        return "neither a dreamchat class nor a name quoted in shared/dreamchat or infra"
    return None


def _resolve(name: str) -> str | None:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
        try:
            target: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return _walk(target, parts[cut:])
    candidates = _defined_in_dreamchat().get(parts[0], [])
    if len(candidates) != 1:
        return f"{parts[0]} is defined in {len(candidates)} dreamchat modules; write the module out"
    return _walk(candidates[0], parts[1:])


def _walk(target: Any, attributes: list[str]) -> str | None:
    for attribute in attributes:
        if inspect.isclass(target) and issubclass(target, BaseModel) and attribute in target.model_fields:
            return None  # a pydantic field is no class attribute
        if not hasattr(target, attribute):
            return f"{getattr(target, '__name__', target)!s} has no {attribute}"
        target = getattr(target, attribute)
    return None


@cache
def _source_text() -> str:
    return "\n".join(path.read_text() for folder in SOURCES for path in sorted(folder.rglob("*.py")))


@cache
def _defined_in_dreamchat() -> dict[str, list[Any]]:
    """Classes and functions by name, each where it is defined (re-exports are not counted twice)."""
    found: dict[str, list[Any]] = {}
    for module_info in pkgutil.walk_packages(dreamchat.__path__, "dreamchat."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ == module.__name__:
                found.setdefault(name, []).append(value)
    return found


def test_the_architecture_page_exists_and_the_readme_links_it() -> None:
    assert DOC.is_file()
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text()


def test_every_name_and_file_on_the_page_exists() -> None:
    checked = [s for s in dict.fromkeys(spans(DOC.read_text())) if kind(s)]
    assert len(checked) > 100, "the page names its functions and files in backticks"
    assert {s: p for s in checked if (p := problem(s))} == {}


def test_every_relative_link_on_the_page_resolves() -> None:
    links = [link for link in LINK.findall(DOC.read_text()) if not re.match(r"^[a-z]+:|^#", link)]
    assert links
    assert [link for link in links if not (DOC.parent / link.split("#")[0]).exists()] == []


@pytest.mark.parametrize(
    "wrong",
    [
        "ChatService.respnd",  # a misspelled method
        "ChatSrvice.respond",  # a class defined nowhere
        "dreamchat.services.chat.ChatService.respnd",
        "dreamchat.servics.chat.ChatService",
        "dreamchat.keys.pair_pkk",
        "functions.chat.handler.handlr",
        "shared/dreamchat/kees.py",
        "functions/*/handlr.py",
        "tests/nowhere/",
        "DREAMCHAT_NO_SUCH_SETTING",
        "ChatSrvice",
        "TopicEnd",
    ],
)
def test_the_check_catches_a_wrong_name(wrong: str) -> None:
    assert kind(wrong) is not None
    assert problem(wrong) is not None


@pytest.mark.parametrize(
    "right",
    [
        "ChatService.respond",
        "dreamchat.services.chat.ChatService.respond",
        "Settings.storage",
        "OpenAIGateway.complete(key, ...)",
        "functions/*/handler.py",
        "DREAMCHAT_TOOL_ROUNDS",
        "ChatService",
        "TopicEnded",
    ],
)
def test_the_check_accepts_a_right_name(right: str) -> None:
    assert kind(right) is not None
    assert problem(right) is None


@pytest.mark.parametrize(
    "prose",
    ["PAIR#<pair>#MSG", "pairs/<account>/<ai user>/x.json", "await models.call(...)", "put_if_absent", "PROFILE"],
)
def test_patterns_prose_and_lower_case_words_are_not_checked(prose: str) -> None:
    assert kind(prose) is None


# --- the page's claims -------------------------------------------------------------------------

THIRD_PARTY = {"boto3": ("dreamchat.adapters", "dreamchat.wiring"), "sqlite3": ("dreamchat.adapters",)}
THIRD_PARTY["PIL"] = ("dreamchat.adapters",)


def table(heading: str, until: str) -> list[list[str]]:
    """The rows of the first table after `heading` (and before `until`), as cells; the header row left out."""
    section = DOC.read_text().split(heading, 1)[1].split(until, 1)[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]


def layers() -> list[tuple[str, list[str]]]:
    """The layers table: each layer and the paths its row names, in the page's order."""
    return [(row[0], SPAN.findall(row[1])) for row in table("## The layers", "The services, by area")]


def python_files(path: str) -> list[Path]:
    if "*" in path:
        return sorted(ROOT.glob(path))
    target = ROOT / path
    return sorted(target.rglob("*.py")) if target.is_dir() else [target] if path.endswith(".py") else []


def module_of(path: str) -> str:
    return path.rstrip("/").removeprefix("shared/").removesuffix(".py").replace("/", ".")


def test_no_row_of_the_page_is_written_twice() -> None:
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| ") and not line.startswith("| --")]
    assert [row for row in dict.fromkeys(rows) if rows.count(row) > 1] == []


def test_a_layer_imports_only_itself_and_the_layers_before_it() -> None:
    from tests.unit.test_layers import imports_of, module_name, within

    owner: dict[Path, str] = {}
    order: list[str] = []
    allowed: dict[str, set[str]] = {}
    for name, paths in layers():
        order.append(name)
        allowed[name] = {module_of(p) for p in paths if "*" not in p} | {"dreamchat"}
        owner |= {file: name for path in paths for file in python_files(path)}  # a later, narrower row wins
    breaches = []
    for file, name in owner.items():
        reach = tuple(set().union(*(allowed[n] for n in order[: order.index(name) + 1])))
        module = module_name(file)
        for imported in imports_of(file.read_text(), module, is_package=file.name == "__init__.py"):
            if imported.startswith("dreamchat") and imported != "dreamchat" and not within(imported, reach):
                breaches.append(f"{name}: {module} -> {imported}")
    assert len(owner) > 150
    assert breaches == []


def test_every_module_of_the_library_has_a_layer() -> None:
    named = {file for _, paths in layers() for path in paths for file in python_files(path)}
    library = set((ROOT / "shared" / "dreamchat").rglob("*.py")) - {ROOT / "shared" / "dreamchat" / "__init__.py"}
    assert sorted(str(f.relative_to(ROOT)) for f in library - named) == []


@pytest.mark.parametrize(("package", "homes"), THIRD_PARTY.items())
def test_boto3_sqlite3_and_pillow_are_imported_only_where_the_page_says(package: str, homes: tuple[str, ...]) -> None:
    import ast

    found = []
    for file in sorted((ROOT / "shared" / "dreamchat").rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == package for n in names):
                found.append(module_of(str(file.relative_to(ROOT))))
    assert found
    assert [module for module in found if not any(module.startswith(home) for home in homes)] == []


def test_each_service_is_defined_in_the_file_its_row_names() -> None:
    wrong = {}
    for row in table("The services, by area", "Four cross-cutting rules"):
        files = [ROOT / path for path in SPAN.findall(row[2])]
        for name in SPAN.findall(row[1]):
            if "." in name and not name.startswith("dreamchat."):  # a method beside the service, `Class.method`
                continue
            cls = name.rsplit(".", 1)[-1]
            if not any(re.search(rf"^(class|def) {cls}\b", f.read_text(), re.M) for f in files if f.is_file()):
                wrong[cls] = row[2]
    assert wrong == {}


def test_the_fakes_are_hand_written() -> None:
    tests = sorted((ROOT / "tests").rglob("*.py"))
    assert [str(f.relative_to(ROOT)) for f in tests if "Magic" + "Mock" in f.read_text()] == []
