"""The layering the code follows, as a test: a new upward import fails here, not in review.

Domain imports nothing of ours but itself; ports only domain; services never adapters or api;
Lambda handlers only `dreamchat.serverless` and the app. Imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"
OURS = ("dreamchat", "functions", "infra")

# The composition root builds the adapters the settings name and hands them to the services:
# the one module of services that may know adapters.
COMPOSITION_ROOTS = {"dreamchat.services.container"}


def module_name(path: Path) -> str:
    parts = path.relative_to(SHARED if path.is_relative_to(SHARED) else ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, *, is_package: bool = False) -> set[str]:
    """Our modules that `source` imports, relative imports resolved; `from x import y` gives x.y."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in OURS}


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def breaches(imports: set[str], *, only: tuple[str, ...] = (), never: tuple[str, ...] = ()) -> list[str]:
    return sorted(name for name in imports if (only and not within(name, only)) or within(name, never))


def layer(*parts: str) -> list[Path]:
    base = SHARED.joinpath("dreamchat", *parts)
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def violations(paths: list[Path], *, only: tuple[str, ...] = (), never: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in paths:
        module = module_name(path)
        imports = imports_of(path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py")
        found += [f"{module} -> {name}" for name in breaches(imports, only=only, never=never)]
    return found


def test_domain_imports_nothing_of_ours_but_itself():
    assert violations(layer("domain"), only=("dreamchat.domain",)) == []


def test_ports_import_only_the_domain():
    assert violations(layer("ports"), only=("dreamchat.domain",)) == []


def test_services_never_import_adapters_or_the_api():
    services = [path for path in layer("services") if module_name(path) not in COMPOSITION_ROOTS]
    assert violations(services, never=("dreamchat.adapters", "dreamchat.api")) == []


def test_services_hold_the_model_port_not_the_gateway():
    services = [path for path in layer("services") if module_name(path) not in COMPOSITION_ROOTS]
    gateway = ("gateway", "client", "provider_errors", "tool_loop", "structured", "usage")
    assert violations(services, never=tuple(f"dreamchat.llm.{name}" for name in gateway)) == []


def test_handlers_import_only_the_serverless_entry_points_and_the_app():
    handlers = sorted((ROOT / "functions").glob("*/handler.py"))
    assert len(handlers) == 4
    assert violations(handlers, only=("dreamchat.serverless", "dreamchat.api.app")) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import dreamchat.adapters.sqlite_store", "dreamchat.adapters.sqlite_store"),
        ("def f():\n    from ..services import memory\n", "dreamchat.services.memory"),
        ("from dreamchat import keys", "dreamchat.keys"),
    ],
)
def test_an_upward_import_in_the_domain_is_a_breach(source, found):
    imports = imports_of(source, "dreamchat.domain.leak")
    assert breaches(imports, only=("dreamchat.domain",)) == [found]


def test_the_domain_importing_itself_relatively_is_no_breach():
    imports = imports_of("from .models import PairId\nfrom . import text\n", "dreamchat.domain.leak")
    assert imports == {"dreamchat.domain.models.PairId", "dreamchat.domain.text"}
    assert breaches(imports, only=("dreamchat.domain",)) == []


# Routers only translate: parse, authorize through a dependency, call one application service, map the
# result to a response. What a use case holds (the store, a lease, an idempotency claim, a model slot, the
# clock) is the services' business, and `api/app.py` builds them only through the container.
API_NEVER_MODULES = (
    "dreamchat.ports",
    "dreamchat.services.leases",
    "dreamchat.services.idempotency",
    "dreamchat.services.limits",
    "dreamchat.domain.clock",
)
API_NEVER_NAMES = {"ItemStore", "Clock", "Slot", "Leases", "Idempotency", "IdempotencyClaim"}
API_NEVER_TEXT = ("runtime.store", "runtime.clock", ".reserve(")
ROUTER_STATEMENTS = 15  # the longest function of a router module, in statements (its docstring not counted)


def api_breaches(source: str, module: str) -> list[str]:
    imports = imports_of(source, module)
    found = [name for name in imports if within(name, API_NEVER_MODULES) or name.rpartition(".")[2] in API_NEVER_NAMES]
    return sorted(found + [text for text in API_NEVER_TEXT if text in source])


def test_the_api_holds_no_store_lease_idempotency_slot_or_clock():
    found = []
    for path in layer("api"):
        found += [
            f"{module_name(path)} -> {name}"
            for name in api_breaches(path.read_text(encoding="utf-8"), module_name(path))
        ]
    assert found == []


def test_no_router_imports_another_router():
    found = []
    for path in layer("api", "routers"):
        module = module_name(path)
        imports = imports_of(path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py")
        found += [f"{module} -> {name}" for name in breaches(imports, never=("dreamchat.api.routers",))]
    assert found == []


def statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The statements of `function`'s body, nested ones included, its docstring not."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return sum(isinstance(node, ast.stmt) for part in body for node in ast.walk(part))


def test_every_router_function_is_short():
    long = []
    for path in layer("api", "routers"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and statements(node) > ROUTER_STATEMENTS:
                long.append(f"{module_name(path)}.{node.name}: {statements(node)} statements")
    assert long == []


# Services modules still reaching the raw item store; each one moved to the unit of work leaves this list.
_NOT_YET: set[str] = set()
RAW_STORE_NAMES = {"dreamchat.ports.ItemStore", "dreamchat.ports.query_all"}


def raw_store_uses(source: str, module: str) -> list[str]:
    """What in `source` reaches the item store past the unit of work: an import of `ItemStore` or
    `query_all`, a `Storage(...)` built by hand, an attribute `store` (or `_store`) read as a value."""
    tree = ast.parse(source)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    found = sorted(RAW_STORE_NAMES & imports_of(source, module))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Storage":
            found.append("Storage(")
        elif isinstance(node, ast.Attribute) and node.attr in {"store", "_store"} and id(node) not in called:
            found.append(f".{node.attr}")
    return found


def test_no_service_outside_storage_reaches_the_raw_item_store():
    storage = SHARED / "dreamchat" / "services" / "storage"
    found = {
        module: uses
        for path in layer("services")
        if not path.is_relative_to(storage)
        and (module := module_name(path)) not in COMPOSITION_ROOTS | _NOT_YET
        and (uses := raw_store_uses(path.read_text(encoding="utf-8"), module))
    }
    assert found == {}


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from dreamchat.ports import ItemStore", ["dreamchat.ports.ItemStore"]),
        ("from dreamchat.services.leases import Leases", ["dreamchat.services.leases.Leases"]),
        ("def f(services):\n    return services.runtime.store.get('pk', 'sk')\n", ["runtime.store"]),
        ("def f(pool):\n    return pool.reserve('acc')\n", [".reserve("]),
        ("from dreamchat.services.container import Services", []),
    ],
)
def test_what_a_router_may_not_hold_is_found(source, found):
    assert api_breaches(source, "dreamchat.api.routers.leak") == found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from dreamchat.ports import ItemStore", ["dreamchat.ports.ItemStore"]),
        ("from dreamchat.ports import query_all", ["dreamchat.ports.query_all"]),
        ("storage = Storage(repo.store)", ["Storage(", ".store"]),
        ("self._store.get(pk, sk)", ["._store"]),
        ("due_pages(self.repo.store, kind, until)", [".store"]),
        ("made = vec.store(name, texts, rows)", []),
        ('"""Written to the store."""', []),
    ],
)
def test_a_raw_store_use_is_found(source, found):
    assert raw_store_uses(source, "dreamchat.services.example") == found
