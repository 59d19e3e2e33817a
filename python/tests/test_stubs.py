"""The type stubs (kifu/_kifu.pyi) and the package agree with what the module has, and every
public function and class carries a docstring."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import kifu
from kifu import _kifu

PKG = Path(kifu.__file__).resolve().parent
STUB = Path(__file__).resolve().parents[1] / "kifu" / "_kifu.pyi"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def test_py_typed_and_stub_ship_in_the_package() -> None:
    assert (Path(__file__).resolve().parents[1] / "kifu" / "py.typed").exists()
    assert STUB.exists()


def test_every_stub_name_exists_and_every_module_name_is_stubbed() -> None:
    tree = stub_tree()
    declared = {
        n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))
    }
    public = {n for n in dir(_kifu) if not n.startswith("_")}
    assert {n for n in declared if not n.startswith("_")} == public
    # Private helpers of the package (`_table_stream`) are stubbed too, and exist.
    assert all(hasattr(_kifu, n) for n in declared if n.startswith("_"))
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        runtime = getattr(_kifu, cls.name)
        members = {
            m.name
            for m in cls.body
            if isinstance(m, ast.FunctionDef) and not m.name.startswith("__")
        }
        attrs = {
            m.target.id
            for m in cls.body
            if isinstance(m, ast.AnnAssign) and isinstance(m.target, ast.Name)
        }
        for name in members:
            assert hasattr(runtime, name), f"{cls.name}.{name} is in the stub only"
        if attrs:  # exceptions: attributes set when raised
            try:
                kifu.parse("hello\n")
            except kifu.ParseError as e:
                for a in attrs:
                    assert hasattr(e, a), a
        runtime_members = {
            n for n, _ in inspect.getmembers(runtime) if not n.startswith("_")
        }
        if not issubclass(runtime, BaseException):
            assert runtime_members <= members, f"{cls.name}: not in the stub {runtime_members - members}"


def test_all_is_importable_and_documented() -> None:
    for name in kifu.__all__:
        obj = getattr(kifu, name)
        assert obj.__doc__, name
    for cls in (kifu.Game, kifu.Position, kifu.Report, kifu.Diagnostic):
        for n, m in inspect.getmembers(cls):
            if not n.startswith("_"):
                assert getattr(m, "__doc__", None), f"{cls.__name__}.{n}"


def test_the_extension_is_built_for_the_stable_abi() -> None:
    # One wheel for every CPython >= 3.9: the module is named *.abi3.so (or .pyd on Windows).
    name = Path(_kifu.__file__).name
    assert name.endswith(".abi3.so") or name.endswith(".pyd"), name
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert 'name = "kifu"' in pyproject and 'requires-python = ">=3.9"' in pyproject
    cargo = (Path(__file__).resolve().parents[1] / "Cargo.toml").read_text()
    assert '"abi3-py39"' in cargo
