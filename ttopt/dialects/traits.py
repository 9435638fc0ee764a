"""Traits of Triton's ops: the rules and memory effects that are not one op's own.

* :class:`TensorSizeTrait`, which every ``tt`` op has (:func:`tt_traits`);
* memory effects that depend on an op's attributes (:class:`LoadEffects`,
  :class:`PureIfMarked`) or that xDSL has no single trait for (:class:`ReadWriteEffect`).
  Ops with fixed effects use xDSL's ``Pure``, ``MemoryReadEffect``, ``MemoryWriteEffect``...;
  ops that declare nothing have *unknown* effects, and the passes treat them as writers;
* :class:`CalleeIsAFunction`, ``tt.call``'s symbol-use check.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FunctionType, IntegerAttr, SymbolRefAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import traits_def
from xdsl.traits import (
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    OpTrait,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import operand_tuple
from .constraints import same, shape_of

MAX_TENSOR_NUM_ELEMENTS = 1048576  # Triton's maxTensorNumElements


class TensorSizeTrait(OpTrait):
    """Triton's ``TensorSizeTrait`` (every ``tt`` op): each ranked tensor operand or result
    has a power-of-two number of elements, at most ``MAX_TENSOR_NUM_ELEMENTS``."""

    # id(type) -> type, for types already found fine: the reader shares one object per type
    # text, so most checks are one set lookup (the type is kept alive, so its id stays its own)
    _fine: ClassVar[dict[int, Attribute]] = {}

    @classmethod
    def forget_types(cls) -> None:
        """Empty the types found fine (ttopt.ir.verify.forget_types)."""
        cls._fine.clear()

    def verify(self, op: Operation) -> None:
        fine = self._fine
        for v in operand_tuple(op):
            if id(v.type) not in fine:
                self._judge(v.type)
        for v in op.results:
            if id(v.type) not in fine:
                self._judge(v.type)

    def _judge(self, t: Attribute) -> None:
        """Raise if ``t`` breaks the rule; else remember it fine."""
        if type(t) is TensorType or isinstance(t, TensorType):
            n = 1
            for d in shape_of(t):  # (t.get_shape(), memoised: the op's rules ask too)
                n *= d if d >= 0 else 1  # (a dynamic size: not Triton's, not checked)
            if n > MAX_TENSOR_NUM_ELEMENTS:
                raise VerifyException(
                    f"maximum allowed number of elements is {MAX_TENSOR_NUM_ELEMENTS}, "
                    f"but '{t}' has more than that"
                )
            if n & (n - 1):
                raise VerifyException(
                    f"number of elements must be power-of-two, but '{t}' has {n} "
                    "elements"
                )
        fine = self._fine
        if len(fine) > 4096:
            fine.clear()
        fine[id(t)] = t


TENSOR_SIZE = TensorSizeTrait()


def tt_traits(*traits):
    """``traits_def`` of a ``tt`` op: Triton's ``TT_Op`` adds ``TensorSizeTrait``."""
    return traits_def(*traits, TENSOR_SIZE)


# ---------------------------------------------------------------------------- effects


def bool_prop(op: Operation, name: str) -> bool:
    """A boolean property or attribute (``BoolAttr``/``IntegerAttr``, or a ``UnitAttr``
    flag); False when absent."""
    attr = op.properties.get(name) or op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data)
    return isinstance(attr, UnitAttr)


class LoadEffects(MemoryEffect):
    """``tt.load``: reads; a volatile load also writes (as in Triton's ``getEffects``)."""

    @classmethod
    def get_effects(cls, op: Operation):
        if bool_prop(op, "isVolatile"):
            return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}
        return {EffectInstance(MemoryEffectKind.READ)}


class PureIfMarked(MemoryEffect):
    """Inline asm and extern calls: none when ``pure = true``, else read and write."""

    @classmethod
    def get_effects(cls, op: Operation):
        if bool_prop(op, "pure"):
            return set()
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


class ReadWriteEffect(MemoryEffect):
    """Reads and writes (atomics, asynchronous copies and dots)."""

    @classmethod
    def get_effects(cls, op: Operation):
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


# ---------------------------------------------------------------------------- symbol uses


class CalleeIsAFunction(SymbolUserOpInterface):
    """``tt.call``'s ``verifySymbolUses``: the callee is a ``tt.func`` of the enclosing
    symbol table, with the call's operand and result types."""

    def verify(self, op: Operation) -> None:
        callee = op.properties.get("callee")
        if not isinstance(callee, SymbolRefAttr):
            raise VerifyException("requires a 'callee' symbol reference attribute")
        try:
            fn = SymbolTable.lookup_symbol(op, callee)
        except ValueError:
            fn = None
        name = callee.root_reference.data
        ft = fn.properties.get("function_type") if fn is not None else None
        if fn is None or fn.name != "tt.func" or not isinstance(ft, FunctionType):
            raise VerifyException(f"'{name}' does not reference a valid function")
        inputs, outputs = ft.inputs.data, ft.outputs.data
        if len(inputs) != len(op.operands):
            raise VerifyException("incorrect number of operands for callee")
        for i, (v, t) in enumerate(zip(op.operands, inputs)):
            if not same(v.type, t):
                raise VerifyException(
                    f"operand type mismatch: expected operand type '{t}', but provided "
                    f"'{v.type}' for operand number {i}"
                )
        if len(outputs) != len(op.results):
            raise VerifyException("incorrect number of results for callee")
        for i, (r, t) in enumerate(zip(op.results, outputs)):
            if not same(r.type, t):
                raise VerifyException(f"result type mismatch at index {i}")


__all__ = [
    "MAX_TENSOR_NUM_ELEMENTS",
    "TensorSizeTrait",
    "TENSOR_SIZE",
    "tt_traits",
    "bool_prop",
    "LoadEffects",
    "PureIfMarked",
    "ReadWriteEffect",
    "CalleeIsAFunction",
]
