"""The web client's functions stay short: every function, method and arrow-function body in `web/` fits in
MAX_FUNCTION_LINES. A long one is a missing name (a view grows into a class of small methods, like ChatView).

No JS parser is installed, so a small scanner does it: it blanks comments, strings, template texts and
regular expressions, then matches braces; a `{` opens a function body when it follows `=>`, `function …(…)`
or a method head `name(…)` that is not `if`, `for`, `while`, `switch` or `catch`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "shared" / "dreamchat" / "web"
MAX_FUNCTION_LINES = 60

CONTROL = {"if", "for", "while", "switch", "catch", "with", "function"}
# after these a `/` starts a regular expression, not a division
REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
REGEX_KEYWORDS = ("return", "typeof", "case", "do", "else", "in", "of", "void", "yield", "await")


@dataclass(frozen=True)
class Function:
    name: str
    line: int
    lines: int


def code_only(source: str) -> str:
    """`source` with comments, string and template texts and regular expressions blanked (newlines kept),
    so that every brace left is code. A template's `${…}` stays code."""
    out: list[str] = []
    stack: list[str] = []  # "`" inside a template text, "{" inside code braces within a template
    i, n = 0, len(source)

    def blank(text: str) -> str:
        return re.sub(r"[^\n]", " ", text)

    while i < n:
        c = source[i]
        if stack and stack[-1] == "`":  # template text
            if c == "\\":
                out.append(blank(source[i : i + 2]))
                i += 2
            elif c == "`":
                stack.pop()
                out.append(" ")
                i += 1
            elif source.startswith("${", i):
                stack.append("{")
                out.append("  ")
                i += 2
            else:
                out.append(blank(c))
                i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(blank(source[i:end]))
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(blank(source[i:end]))
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(blank(source[i : j + 1]))
            i = j + 1
        elif c == "`":
            stack.append("`")
            out.append(" ")
            i += 1
        elif c == "/" and _starts_regex("".join(out)):
            j = i + 1
            in_class = False
            while j < n and source[j] != "\n" and (in_class or source[j] != "/"):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            out.append(blank(source[i : j + 1]))
            i = j + 1
        elif c == "{" and stack:
            stack.append("{")
            out.append(c)
            i += 1
        elif c == "}" and stack and stack[-1] == "{":
            stack.pop()
            out.append(" " if stack and stack[-1] == "`" else c)  # the `}` closing `${`
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _starts_regex(before: str) -> bool:
    text = before.rstrip()
    if any(re.search(rf"\b{word}$", text) for word in REGEX_KEYWORDS):
        return True
    return (text[-1:] if text else "") in REGEX_AFTER


def functions(source: str) -> list[Function]:
    """Every function body in `source`, with the line its `{` is on and how many lines it spans."""
    code = code_only(source)
    found: list[Function] = []
    opened: list[tuple[int, str | None]] = []
    for match in re.finditer(r"[{}]", code):
        if match.group() == "{":
            opened.append((match.start(), _function_name(code[: match.start()])))
            continue
        start, name = opened.pop()
        if name is not None:
            first = code.count("\n", 0, start) + 1
            last = code.count("\n", 0, match.start()) + 1
            found.append(Function(name, first, last - first + 1))
    assert not opened, "unbalanced braces"
    return found


def _function_name(before: str) -> str | None:
    """The name of the function whose body a `{` here opens, "=>" for an arrow function, or None."""
    text = before.rstrip()
    if text.endswith("=>"):
        return "=>"
    if not text.endswith(")"):
        return None
    depth, i = 0, len(text) - 1
    while i >= 0:
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            break
        i -= 1
    head = re.search(r"(?:\bfunction\s*\*?\s*)?([A-Za-z_$][\w$]*)?\s*$", text[:i])
    word = head.group(1) if head else None
    if head and head.group(0).lstrip().startswith("function"):
        return word or "function"
    return word if word and word not in CONTROL else None


def web_functions() -> dict[str, Function]:
    found = {}
    for path in sorted(WEB.rglob("*.js")):
        for function in functions(path.read_text(encoding="utf-8")):
            found[f"{path.relative_to(WEB)}:{function.line} {function.name}"] = function
    return found


def test_no_function_in_the_web_client_is_over_the_limit():
    long = {where: f.lines for where, f in web_functions().items() if f.lines > MAX_FUNCTION_LINES}
    assert long == {}


def test_the_scanner_sees_each_kind_of_function():
    source = """
class View {
  constructor(a) {
    this.a = a;
  }
  async load() {
    if (this.a) {
      return `${this.a.map((x) => { return x; })} }`;
    }
  }
}
function plain(x) {
  const re = /[{]/g;  // a brace } in a comment
  return "{" + x.replace(re, "");
}
const arrow = (y) => {
  return y;
};
"""
    assert [(f.name, f.line, f.lines) for f in functions(source)] == [
        ("constructor", 3, 3),
        ("=>", 8, 1),
        ("load", 6, 5),
        ("plain", 12, 4),
        ("=>", 16, 3),
    ]


def test_the_scanner_reads_every_file_of_the_client():
    found = web_functions()
    assert any(where.startswith("views/chat.js") and f.name == "open" for where, f in found.items())
    assert len({where.split(":")[0] for where in found}) == len(list(WEB.rglob("*.js")))
