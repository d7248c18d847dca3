"""Size limits the code keeps, as a test: a service module that grows past a screenful of screens, or a
class that becomes a hub, fails here rather than in review. Split by use case, never by line count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DREAMCHAT = ROOT / "shared" / "dreamchat"
MAX_SERVICE_LINES = 250
MAX_PUBLIC_METHODS = 15


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def public_methods(node: ast.ClassDef) -> list[str]:
    return [
        item.name
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not item.name.startswith("_")
    ]


def hubs(source: str, limit: int = MAX_PUBLIC_METHODS) -> dict[str, int]:
    """The classes in `source` with more than `limit` public methods, and how many they have."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and len(public_methods(node)) > limit:
            found[node.name] = len(public_methods(node))
    return found


def modules(*parts: str) -> list[Path]:
    return sorted(DREAMCHAT.joinpath(*parts).rglob("*.py"))


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_no_service_module_is_over_the_line_limit():
    long = {relative(path): lines_of(path) for path in modules("services") if lines_of(path) > MAX_SERVICE_LINES}
    assert long == {}


def test_no_class_of_the_services_or_the_llm_layer_is_a_hub():
    found = {}
    for path in modules("services") + modules("llm"):
        found |= {f"{relative(path)}:{name}": count for name, count in hubs(path.read_text(encoding="utf-8")).items()}
    assert found == {}


def test_the_limits_see_what_they_are_meant_to():
    assert modules("services") and modules("llm")
    methods = "\n".join(f"    def m{i}(self): ...\n" for i in range(MAX_PUBLIC_METHODS + 1))
    assert hubs(f"class Hub:\n{methods}\n    def _private(self): ...\n") == {"Hub": MAX_PUBLIC_METHODS + 1}
    assert hubs(f"class Fine:\n{methods}".replace("def m0", "def _m0")) == {}


def test_a_public_class_or_type_name_means_one_thing_in_the_whole_library():
    """A name (`Event`, `Page`, `Slot`, `Profile`…) defined in two modules meant two things; each is one now."""
    homes: dict[str, set[str]] = {}
    for path in DREAMCHAT.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef | ast.TypeAlias):
                name = node.name if isinstance(node, ast.ClassDef) else node.name.id
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                if not (name[:1].isupper() and not name.isupper()):
                    continue  # a constant or a variable, not a type
            else:
                continue
            if not name.startswith("_"):
                homes.setdefault(name, set()).add(path.relative_to(DREAMCHAT).as_posix())
    assert {name: sorted(files) for name, files in homes.items() if len(files) > 1} == {}


def test_every_response_schema_ends_in_out():
    """One scheme for what a route answers: `<Thing>Out` (request bodies are `Body` subclasses)."""
    tree = ast.parse((DREAMCHAT / "api" / "responses.py").read_text(encoding="utf-8"))
    answers = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    for path in (DREAMCHAT / "api" / "routers").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        answers += [
            n.name
            for n in tree.body
            if isinstance(n, ast.ClassDef) and "Out" in [getattr(b, "id", "") for b in n.bases]
        ]
    assert len(answers) > 60 and [name for name in answers if not name.endswith("Out")] == []


# What the container builds that is a resource, not a service: the memory's reads, the model pool, budgets.
NOT_SERVICES = {"MemoryRepository", "ModelPool", "AccountBudget", "ModelCallBudget", "Caps", "Services"}


def test_every_service_is_named_subject_service():
    """One scheme for services: `<Subject>Service` (docs/architecture.md, "Names")."""
    services = {
        path.stem: {
            node.name for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.ClassDef)
        }
        for path in (DREAMCHAT / "services").glob("*.py")
    }
    defined = set().union(*services.values())
    container = ast.parse((DREAMCHAT / "services" / "container.py").read_text(encoding="utf-8"))
    built = {
        node.func.id
        for node in ast.walk(container)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined
    }
    built -= NOT_SERVICES
    assert len(built) > 25 and sorted(name for name in built if not name.endswith("Service")) == []
