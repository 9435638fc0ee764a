"""xDSL's private API is used in one module only (ttopt/xdsl_compat.py).

"Private": a name with one leading underscore that xDSL defines on the classes ttopt builds on
(parser, printer, lexer, IR objects, op definitions); "used": read, called, assigned or
overridden (a method of that name in a ttopt class) anywhere in ttopt's sources, or imported
from an xDSL module."""

import ast
import pathlib

import pytest
import xdsl
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import IRDLOperation, ParametrizedAttribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.printer import Printer
from xdsl.utils.lexer import Token
from xdsl.utils.mlir_lexer import MLIRLexer, StringLiteral

import ttopt
from ttopt import xdsl_compat

PACKAGE = pathlib.Path(ttopt.__file__).parent
CLASSES = (
    Parser, Printer, MLIRLexer, StringLiteral, Token, Operation, IRDLOperation, ModuleOp,
    Block, Region, SSAValue, OpResult, BlockArgument, Attribute, ParametrizedAttribute,
    ModulePass, PatternRewriter, PatternRewriteWalker, RewritePattern,
)


def _private_names() -> set[str]:
    names = set()
    for cls in CLASSES:
        for klass in cls.__mro__:
            if klass.__module__.startswith("xdsl"):
                own = set(vars(klass)) | {f.name for f in getattr(klass, "__dataclass_fields__", {}).values()}
                names.update(n for n in own if n.startswith("_") and not n.startswith("__"))
    return names


PRIVATE = _private_names()


def _uses(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    methods = {
        id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
        for f in c.body if isinstance(f, ast.FunctionDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE:
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.FunctionDef) and id(node) in methods and node.name in PRIVATE:
            found.append(f"{path.name}:{node.lineno}: def {node.name}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xdsl"):
            found += [
                f"{path.name}:{node.lineno}: import {a.name}"
                for a in node.names if a.name.startswith("_")
            ]
    return sorted(found)


def test_the_private_names_are_known():
    """The scan looks for something: xDSL's parser state and hooks are among the names."""
    assert {"_current_token", "_resume_from", "_register_ssa_definition", "_ssa_values",
            "_operands", "_name", "_print_results", "_lex_string_literal"} <= PRIVATE


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "xdsl_compat.py"],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_private_xdsl_api_outside_the_compat_module(path):
    assert _uses(path) == []


def test_the_scan_finds_a_private_use(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text(
        "from xdsl.parser.core import _x\n"
        "def f(p):\n    return p._current_token\n"
        "class P:\n    def _resume_from(self, pos):\n        pass\n"
    )
    assert _uses(f) == ["bad.py:1: import _x", "bad.py:3: ._current_token", "bad.py:5: def _resume_from"]


def test_the_compat_module_is_for_the_pinned_xdsl():
    assert str(xdsl.__version__) == xdsl_compat.XDSL_VERSION
