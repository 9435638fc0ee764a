"""xDSL's own op classes in ttopt's context: the adapter ttopt puts around each.

ttopt's ``arith``, ``math``, ``scf`` and ``ub`` dialects are made of xDSL's own op classes
(``xdsl.dialects.arith.AddiOp``...) wherever those read and print Triton's text (``ub.poison``
and ``scf.yield`` as they are, with their rules registered here).  Each other one is
registered in ttopt's context (never in xDSL's: the ``xdsl.universe`` plugin,
:mod:`ttopt.universe`, registers no ``arith``/``math``/``scf``) as an **adapter**, made by
:func:`adapt`: a plain Python subclass of xDSL's class, with no IRDL definition of its own.
Its syntax, printing, builders, traits, folders and canonicalization patterns are xDSL's,
``isinstance`` of xDSL's class holds (xDSL's patterns and ttopt's passes, which name xDSL's
classes, see it), and it registers under xDSL's op name.  What it changes is what Triton's
own parser and verifier (MLIR's) do differently:

* **MLIR's type constraints** (:func:`mlir_op_def`): each operand/result constraint that
  xDSL words its own way is swapped for ttopt's equivalent of MLIR's
  (:mod:`ttopt.dialects.constraints`): ``container_of(AnyFloat)`` is MLIR's ``FloatLike``,
  ``container_of(IntegerType | IndexType)`` is MLIR's ``SignlessIntegerLike`` (xDSL's also
  takes ``si32``/``ui32``, which MLIR and Triton reject).  Errors then read as Triton's
  (``'arith.addf' op operand #1 must be floating-point-like, but got 'i32'``), and ttopt's
  verifier checks each with one ``isinstance`` (xDSL's take a few microseconds each).
  The equality that a constraint variable meant (``VarConstraint("T", ...)`` on ``lhs``,
  ``rhs`` and ``result``) becomes a rule of the op, in MLIR's words (``requires the same type
  for all operands and results``);
* **MLIR's parse-time behaviour** (:class:`MLIRFormatProgram`): xDSL's format program (the
  same directives: the same syntax) checking nothing while parsing, as MLIR's generated
  parsers: the op is built and the verifier reports, at the op.  xDSL's raises from inside
  the parser (``math.exp %x : i32`` was an error at the *next* op, in xDSL's words);
* ``build(operands, result_types, properties, attributes)`` also positional, as ttopt's own
  ops take it: the reader's fast path (:mod:`ttopt.ir.fast_ops`) builds ops that way;
* where a module says so: MLIR traits xDSL 0.74 leaves out (``Commutative`` on
  ``arith.addf``...) or an MLIR rule its verifier does not check (``arith.extf`` must
  widen, ``scf.for``'s results are its loop-carried types ...).

ttopt's verifier (:mod:`ttopt.ir.verify`) checks an op's IRDL constraints from a plan
compiled from ``get_irdl_definition()`` (here the adapter's, with MLIR's constraints), and
then the class's own rules, from :data:`ttopt.dialects.base.OWN_VERIFY`: for an adapter
(and for xDSL's class itself: ops an xDSL pass builds), the equality rules, the ``verify_``
xDSL's class defines (without the IRDL checks ``irdl_op_definition`` wraps around it) and
the adapter's rule; :func:`register_verify` puts them there.  xDSL's own ``verify()`` on an
adapter runs the same (MLIR's constraints, then those rules).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

from xdsl.dialects import arith as _arith
from xdsl.dialects.builtin import UNKNOWN_LOC, IndexType, SignlessIntegerConstraint, i1
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    EqAttrConstraint,
    IRDLOperation,
    VarConstraint,
    base,
    traits_def,
)
from xdsl.irdl.constraints import RangeConstraint, RangeLengthConstraint, RangeOf
from xdsl.irdl.declarative_assembly_format import FormatProgram, ParsingState
from xdsl.irdl.operations import OpDef, PropertyDef, VariadicDef
from xdsl.parser import Parser
from xdsl.traits import SameOperandsAndResultType
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import operand_tuple, own_verify
from .base import OWN_VERIFY
from .declarative import LazyProgram
from .constraints import (
    BoolLike,
    ExactType,
    FloatLike,
    SignlessIntegerLike,
    SignlessIntegerOrIndex,
    same,
)

Rule = Callable[[Operation], None]

# xDSL's constraints -> MLIR's (ttopt's TypeKinds: MLIR's descriptions, fast checks); xDSL's
# `math` module's two are added by ttopt.dialects.math (imported when a text first names a
# math op: its 40 op definitions cost ~15 ms of start-up)
MLIR_CONSTRAINTS: list[tuple[AttrConstraint, AttrConstraint]] = [
    (_arith.floatingPointLike, FloatLike()),
    (_arith.signlessIntegerLike, SignlessIntegerLike()),
    (_arith.boolLike, BoolLike("bool-like")),
    (base(IndexType) | SignlessIntegerConstraint, SignlessIntegerOrIndex()),  # scf.for
    (EqAttrConstraint(i1), ExactType(i1, "1-bit signless integer")),  # scf.if, condition
]


# ----------------------------------------------------------------------------- constraints
def _mlir_constraint(c: AttrConstraint) -> AttrConstraint:
    """MLIR's constraint for xDSL's ``c`` (a constraint variable dropped: its equality is a
    rule of the op, :func:`_same_type_rule`)."""
    if isinstance(c, VarConstraint):
        c = c.constraint
    for xdsl_constr, mlir_constr in MLIR_CONSTRAINTS:
        if c == xdsl_constr:
            return mlir_constr
    return c


def _mlir_range(rc: RangeConstraint) -> RangeConstraint:
    if isinstance(rc, RangeLengthConstraint):
        return dataclasses.replace(rc, constraint=_mlir_range(rc.constraint))
    if isinstance(rc, RangeOf):
        return dataclasses.replace(rc, constr=_mlir_constraint(rc.constr))
    return rc


def _with_constr(d, constr: RangeConstraint):
    """A copy of operand/result definition ``d`` with constraint ``constr``."""
    new = copy.copy(d)
    new.constr = constr
    return new


def mlir_op_def(
    cls: type[IRDLOperation],
    traits=None,
    verify_without: tuple = (),
    operands: Mapping[str, AttrConstraint] | None = None,
    properties: Mapping[str, PropertyDef] | None = None,
) -> OpDef:
    """``cls``'s IRDL definition with MLIR's operand and result constraints (module doc);
    ``traits``: the adapter's traits, if it has its own.  Traits of a class in
    ``verify_without`` are not verified through the definition: a rule of the adapter makes
    their check, in MLIR's words.  So is ``SameOperandsAndResultType`` where the equality
    rule makes its check (a constraint variable on every operand and result; the trait's own
    message reads ``'math.fma requires the same type ...``).  The class keeps its traits.
    ``operands``: MLIR's constraint of an operand (by name) where the global mapping of
    xDSL's constraints is not MLIR's for this op (``cf.switch``'s flag is MLIR's
    ``AnyInteger``); ``properties``: properties MLIR's op has and xDSL's lacks
    (``scf.for``'s ``unsignedCmp``)."""
    op_def = cls.get_irdl_definition()
    traits = traits if traits is not None else op_def.traits
    if _same_type_rule(op_def, covers_all=True) is not None:
        verify_without = (*verify_without, SameOperandsAndResultType)
    if verify_without:
        traits = traits_def(*(t for t in traits if not isinstance(t, verify_without)))
    own = operands or {}

    def operand(n, d):
        if n in own:
            return _with_constr(d, _with_single(d.constr, own[n]))
        return _with_constr(d, _mlir_range(d.constr))

    return dataclasses.replace(
        op_def,
        operands=[(n, operand(n, d)) for n, d in op_def.operands],
        results=[(n, _with_constr(d, _mlir_range(d.constr))) for n, d in op_def.results],
        properties={**op_def.properties, **(properties or {})},
        traits=traits,
    )


def _with_single(rc: RangeConstraint, c: AttrConstraint) -> RangeConstraint:
    """``rc`` (an operand's range constraint) constraining each value by ``c`` instead."""
    if isinstance(rc, RangeLengthConstraint):
        return dataclasses.replace(rc, constraint=_with_single(rc.constraint, c))
    if isinstance(rc, RangeOf):
        return dataclasses.replace(rc, constr=c)
    return rc


# ----------------------------------------------------------------------------- rules
def _unwrap(constr):
    """The per-value constraint inside an operand/result definition's range constraint."""
    for _ in range(3):  # RangeLengthConstraint(RangeOf(c)) / RangeOf(c)
        if isinstance(constr, VarConstraint):
            break
        inner = getattr(constr, "constraint", None) or getattr(constr, "constr", None)
        if inner is None:
            break
        constr = inner
    return constr


def _same_type_rule(op_def: OpDef, covers_all: bool = False) -> Rule | None:
    """MLIR's ``SameOperandsAndResultType`` / ``AllTypesMatch`` for the operands and results
    of ``op_def`` (xDSL's) that share a constraint variable; None: nothing to check (or,
    with ``covers_all``, not one variable on every operand and result)."""
    if any(isinstance(d, VariadicDef) for _, d in (*op_def.operands, *op_def.results)):
        return None  # (positions would move: no such op here)
    groups: dict[str, list[tuple[bool, int, str]]] = {}
    for is_result, defs in ((False, op_def.operands), (True, op_def.results)):
        for i, (name, d) in enumerate(defs):
            c = _unwrap(d.constr)
            if isinstance(c, VarConstraint):
                groups.setdefault(c.name, []).append((is_result, i, name))
    n_values = len(op_def.operands) + len(op_def.results)
    if covers_all and not any(len(m) == n_values for m in groups.values()):
        return None
    checks = []
    for members in groups.values():
        if len(members) < 2:
            continue
        if len(members) == n_values:
            message = "requires the same type for all operands and results"
        else:
            names = ", ".join(name for _, _, name in members)
            message = f"failed to verify that all of {{{names}}} have same type"
        checks.append((tuple((r, i) for r, i, _ in members), message))
    if not checks:
        return None
    item = tuple.__getitem__
    if len(checks) == 1 and len(checks[0][0]) == n_values and op_def.results:
        # (one type for every operand and result, the binary ops': each the result's;
        # equality is an equivalence, so which value is the reference does not matter)
        message = checks[0][1]

        def all_one_type(op: Operation) -> None:
            results = op.results
            t = item(results, 0).type
            for v in operand_tuple(op):
                vt = v.type
                if vt is not t and not same(vt, t):
                    raise VerifyException(message)
            if len(results) > 1:
                for v in results:
                    vt = v.type
                    if vt is not t and not same(vt, t):
                        raise VerifyException(message)

        return all_one_type

    def same_types(op: Operation) -> None:
        operands, results = operand_tuple(op), op.results
        for positions, message in checks:
            first = None
            for is_result, i in positions:
                t = (item(results, i) if is_result else item(operands, i)).type
                if first is None:
                    first = t
                elif t is not first and not same(t, first):
                    raise VerifyException(message)

    return same_types


def _chain(rules: Iterable[Rule | None]) -> Rule | None:
    rules = tuple(r for r in rules if r is not None)
    if not rules:
        return None
    if len(rules) == 1:
        return rules[0]

    def run(op: Operation) -> None:
        for rule in rules:
            rule(op)

    return run


def register_verify(
    cls: type[IRDLOperation],
    rule: Rule | None = None,
    *,
    upstream: type[IRDLOperation] | None = None,
    replace_verify: bool = False,
) -> Rule | None:
    """Put the own rules of ``cls`` (an xDSL class, or an adapter of ``upstream``) in
    ``OWN_VERIFY`` for ttopt's verifier: constraint-variable equalities, the class's own
    ``verify_`` (not with ``replace_verify``), then ``rule``.  Returns them."""
    source = upstream or cls
    rules = _chain([
        _same_type_rule(source.get_irdl_definition()),
        None if replace_verify else own_verify(source),
        rule,
    ])
    OWN_VERIFY[cls] = rules
    return rules


# ----------------------------------------------------------------------------- parsing
@dataclasses.dataclass(frozen=True)
class MLIRFormatProgram(FormatProgram):
    """xDSL's ``FormatProgram`` (same directives: same syntax, same printing) that parses as
    MLIR's generated parsers do: no constraint is checked while parsing, the op is built and
    the verifier reports, at the op.  Types the format does not spell are inferred as xDSL
    does, from the constraint variables of ``op_def`` (xDSL's definition) that the parsed
    types bind (``$lhs, $rhs : type($result)`` binds ``T`` to the result type); only when
    that fails is xDSL's own check run, for its error."""

    op_def: OpDef | None = None

    @staticmethod
    def for_op(op_def: OpDef) -> MLIRFormatProgram:
        assert op_def.assembly_format is not None
        stmts = FormatProgram.from_str(op_def.assembly_format, op_def).stmts
        return MLIRFormatProgram(stmts, op_def)

    def parse(self, parser: Parser, op_type: type[IRDLOperation]) -> IRDLOperation:
        op_def = self.op_def
        assert op_def is not None
        state = ParsingState(op_type)
        for stmt in self.stmts:
            stmt.parse(parser, state)
        self.resolve_constraint_variables(state, op_def)
        operand_types = self.resolve_operand_types(state, op_def)
        result_types = self.resolve_result_types(state, op_def)
        operands = tuple(
            parser.resolve_operands(cast(Sequence, uo), ot, parser.pos)
            for uo, ot in zip(state.operands, operand_types, strict=True)
        )
        return op_type.build(
            result_types=result_types,
            operands=operands,
            attributes=state.attributes,
            properties=state.properties,
            regions=state.regions,
            successors=state.successors,
        )

    def resolve_constraint_variables(self, state: ParsingState, op_def: OpDef) -> None:
        ctx = state.context
        typed = (
            *zip(state.operand_types, op_def.operands),
            *zip(state.result_types, op_def.results),
        )
        for types, (_, d) in typed:
            if types is None:
                continue
            if isinstance(types, Attribute):
                types = (types,)
            c = _unwrap(d.constr)
            if isinstance(c, VarConstraint):
                if types and ctx.get_variable(c.name) is None:
                    ctx.set_attr_variable(c.name, types[0])
            elif d.constr.variables():
                _quietly(d.constr.verify, types, ctx)
        for values, defs in (
            (state.properties, op_def.properties),
            (state.attributes, op_def.attributes),
        ):
            for name, d in defs.items():
                attr = values.get(name, d.default_value)
                if attr is not None and d.constr.variables():
                    _quietly(d.constr.verify, attr, ctx)
        try:  # can every type the format does not spell be inferred?
            self.resolve_operand_types(state, op_def)
            self.resolve_result_types(state, op_def)
        except Exception:
            # no: xDSL's own checks say why (they raise); if they do not, the inference's
            # error stands
            state.context = type(ctx)()
            FormatProgram.resolve_constraint_variables(self, state, op_def)
            raise


def _quietly(verify, value, ctx) -> None:
    try:
        verify(value, ctx)
    except VerifyException:
        pass  # (the verifier reports it)


def mlir_parse(op_def: OpDef):
    """A ``parse`` classmethod running the format of ``op_def`` (xDSL's) as MLIR does; None
    if it has no declarative format."""
    if op_def.assembly_format is None:
        return None
    lazy = LazyProgram(lambda: MLIRFormatProgram.for_op(op_def))  # (built on first use)

    def parse(cls, parser: Parser):
        return lazy.get().parse(parser, cls)

    return classmethod(parse)


# ----------------------------------------------------------------------------- building
class PositionalBuild:
    """``build`` as ttopt's own ops take it: ``(operands, result_types, properties,
    attributes, regions)``, positional or by keyword, xDSL's keyword form included (one
    entry per operand definition, a list for a variadic one).  Made with ``create`` when
    there is nothing to lay out (no segment sizes): what xDSL's builder makes (``None``
    values dropped; ``create`` fills in the default property values, ``fastmath = none``)."""

    @classmethod
    def build(
        cls,
        operands: Sequence | None = None,
        result_types: Sequence | None = None,
        properties: dict[str, Attribute | None] | None = None,
        attributes: dict[str, Attribute | None] | None = None,
        regions: Sequence | None = None,
        successors: Sequence | None = None,
    ):
        segmented = cls.__dict__.get("_ttopt_segmented")
        if segmented is None:
            segmented = bool(cls.get_irdl_definition().options)
            setattr(cls, "_ttopt_segmented", segmented)
        flat = None if segmented else _flat(operands, SSAValue)
        types = None if flat is None else _flat(result_types, Attribute)
        if (
            types is None
            or any(successors or ())
            or any(not isinstance(r, Region) for r in regions or ())
        ):
            return IRDLOperation.build.__func__(  # type: ignore[attr-defined]
                cls,
                operands=operands,
                result_types=result_types,
                properties=properties,
                attributes=attributes,
                regions=regions,
                successors=successors,
            )
        if properties and None in properties.values():
            properties = {k: v for k, v in properties.items() if v is not None}
        if attributes and None in attributes.values():
            attributes = {k: v for k, v in attributes.items() if v is not None}
        return cls.create(
            operands=flat,
            result_types=types,
            properties=dict(properties or {}),
            attributes=dict(attributes or {}),
            regions=regions or (),
            location=UNKNOWN_LOC,  # (what create gives, without its import per call)
        )


def _flat(items: Sequence | None, kind: type) -> Sequence | None:
    """``items`` (each a ``kind`` or a sequence of them) as one flat sequence; None if some
    item is anything else."""
    if not items:
        return ()
    if all(isinstance(x, kind) for x in items):
        return items
    out: list = []
    for x in items:
        if isinstance(x, kind):
            out.append(x)
        elif isinstance(x, (list, tuple)) and all(isinstance(y, kind) for y in x):
            out.extend(x)
        else:
            return None
    return out


# ----------------------------------------------------------------------------- adapters
def adapt(
    upstream: type[IRDLOperation],
    *,
    extra_traits: Sequence = (),
    rule: Rule | None = None,
    replace_verify: bool = False,
    parse=None,
    print_=None,
    verify_without: tuple = (),
    operands: Mapping[str, AttrConstraint] | None = None,
    properties: Mapping[str, PropertyDef] | None = None,
    drop_traits: tuple = (),
    why: str = "",
) -> type[IRDLOperation]:
    """The adapter of xDSL's op class ``upstream`` (module doc).  ``extra_traits``: MLIR
    traits to add; ``rule``: an MLIR rule checked after the others (in place of xDSL's own
    ``verify_`` with ``replace_verify``); ``parse``: a ``parse`` classmethod (default: the
    format of ``upstream``, run by :class:`MLIRFormatProgram`); ``print_``: a ``print``
    method, where xDSL's cannot print Triton's text; ``verify_without``: trait classes whose
    check ``rule`` makes, ``operands`` and ``properties``: MLIR's operand constraints and
    properties where xDSL's differ (:func:`mlir_op_def`); ``drop_traits``: trait classes of
    xDSL's class the adapter does not have (one ``extra_traits`` replaces: xDSL's
    canonicalization patterns of ``scf.for`` compare bounds as signed integers);
    ``why``: what the adapter adds, for its docstring."""
    traits = None
    if extra_traits or drop_traits:
        kept = (t for t in upstream.traits if not isinstance(t, drop_traits))
        traits = traits_def(*kept, *extra_traits)
    op_def = mlir_op_def(upstream, traits, verify_without, operands, properties)
    namespace: dict = {
        "__module__": __name__,
        "__qualname__": upstream.__name__,
        "__doc__": f"xDSL's ``{upstream.__module__}.{upstream.__name__}`` in ttopt's "
        f"context, with MLIR's constraints{'; ' + why if why else ''} "
        "(see ttopt.dialects.upstream).",
        "get_irdl_definition": classmethod(lambda cls: op_def),
    }
    if traits is not None:
        namespace["traits"] = traits
    parse = parse or mlir_parse(upstream.get_irdl_definition())
    if parse is not None:
        namespace["parse"] = parse
    if print_ is not None:
        namespace["print"] = print_
    adapter = type(upstream.__name__, (PositionalBuild, upstream), namespace)
    rules = register_verify(adapter, rule, upstream=upstream, replace_verify=replace_verify)

    def verify_(self) -> None:
        op_def.verify(self)
        if rules is not None:
            rules(self)

    adapter.verify_ = verify_
    # ttopt's verifier checks the same rules on xDSL's own instances (ops xDSL passes build)
    register_verify(upstream, rule, replace_verify=replace_verify)
    return adapter


__all__ = [
    "MLIR_CONSTRAINTS",
    "MLIRFormatProgram",
    "PositionalBuild",
    "adapt",
    "mlir_op_def",
    "mlir_parse",
    "own_verify",
    "register_verify",
]
