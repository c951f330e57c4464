"""Product code stays small enough to read (CONTRIBUTING.md, "Where things go"): no module
of ``leaderboard/`` or ``evaluation/`` over 450 lines and no function over 60 lines,
migrations aside. A function's length is what Python's parser says it spans, from its
``def`` line to its last line (decorators not counted)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PRODUCT_PACKAGES = ("leaderboard", "evaluation")
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60


def product_modules(root: Path) -> Iterator[Path]:
    """Every Python file of the product packages under ``root``, migrations left out."""
    for package in PRODUCT_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.relative_to(root).parts:
                yield path


def offences(path: Path, root: Path) -> list[str]:
    """What in one module is too long, one line each: the module, then its functions."""
    name = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{name}: module of {lines} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(text, filename=name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{name}:{node.lineno}: {node.name}() of {length} lines (at most {MAX_FUNCTION_LINES})")
    return found


def shape_offences(root: Path) -> list[str]:
    return [line for path in product_modules(root) for line in offences(path, root)]


def test_no_product_module_or_function_is_too_long():
    found = shape_offences(REPO_ROOT)
    assert not found, f"{len(found)} too long; split them by job:\n" + "\n".join(found)


def _function(name: str, lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"def {name}():\n{body}    return 0\n"


def test_the_check_names_each_offender_and_nothing_else(tmp_path):
    """A planted tree: a 61-line function (decorated, nested in a class), a 451-line module
    and a long migration are named; a 60-line function and a 450-line module are not."""
    engine = tmp_path / "evaluation"
    (engine / "sub").mkdir(parents=True)
    (tmp_path / "leaderboard" / "migrations").mkdir(parents=True)
    planted = "class Planted:\n    @staticmethod\n" + "".join(
        "    " + line + "\n" for line in _function("long", 61).splitlines()
    )
    (engine / "planted.py").write_text(planted + _function("fits", 60))
    (engine / "sub" / "big.py").write_text("x = 0\n" * 451)
    (engine / "sub" / "fits.py").write_text("x = 0\n" * 450)
    (tmp_path / "leaderboard" / "migrations" / "0001_initial.py").write_text(_function("migrate", 500))
    assert shape_offences(tmp_path) == [
        "evaluation/planted.py:3: long() of 61 lines (at most 60)",
        "evaluation/sub/big.py: module of 451 lines (at most 450)",
    ]
