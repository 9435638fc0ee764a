"""Fuzz test of ``ttopt-opt``: ~810 variants of real Triton IR (mutated with a fixed seed) run
through the real CLI, its contract checked on each.  What is mutated, the contract, and how to
reproduce a single variant: see test/fuzzing.py's docstring, in short::

    .venv/bin/python test/fuzzing.py --check 'small/add.ttir:truncate#0'   # one variant
    .venv/bin/python test/fuzzing.py --run                                 # the whole report

The campaign runs once per module (two long-lived worker processes, plus ten variants as real
``python -m ttopt.cli`` processes); the tests below look at its results from different sides.
``-rA`` (or ``-s``) shows the report: per mutation, how many variants ttopt accepted/rejected,
and how many Triton disagrees with.
"""

from __future__ import annotations

import collections

import pytest

import fuzzing

# Ratchets, per source set (test/fixtures, or ../shared/corpus when there are no fixtures or
# TTOPT_FUZZ_SOURCES=corpus): the variants differ, so do the counts.
#
# Inputs that ttopt accepts (exit 0) but Triton 3.6 rejects: none since layouts are checked
# as each release checks them (ttopt/dialects/layouts.py: a misspelled key of a layout, a
# module without "ttg.num-warps" for its layouts, a NUL between a dialect type's name and its
# '<'); it was 3 (fixtures) and 1 (corpus) before.  Keep it at 0.
ACCEPTED_BUT_TRITON_REJECTS_MAX = {"fixtures": 0, "corpus": 0}

# Inputs that Triton accepts but ttopt rejects (NUL bytes excluded, see the test): none since
# layout bodies are compared as MLIR compares them, whitespace between tokens aside
# (tt_attrs.body_key; it was 2: a layout or memdesc spelled with other whitespace in one use).
REJECTED_BUT_TRITON_ACCEPTS_MAX = {"fixtures": 0, "corpus": 0}

MIN_VARIANTS = 300
MAX_IN_MESSAGE = 25
CAMPAIGN_DEADLINE_S = 100.0  # the whole campaign; the test must stay under 2 minutes


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    c = fuzzing.run_campaign(tmp_path_factory.mktemp("fuzz"), jobs=2, deadline_s=CAMPAIGN_DEADLINE_S)
    print(fuzzing.summary(c))
    return c


def _report(title: str, failures: list, c) -> str:
    by_cat = collections.Counter(r.variant.mutation for r in failures)
    lines = [
        f"{title}: {len(failures)} variants ({', '.join(f'{k} {n}' for k, n in sorted(by_cat.items()))})",
        fuzzing.failure_table(failures),
        "",
        *(fuzzing.describe(r) for r in failures[:MAX_IN_MESSAGE]),
    ]
    if len(failures) > MAX_IN_MESSAGE:
        lines.append(f"... and {len(failures) - MAX_IN_MESSAGE} more (python test/fuzzing.py --run lists all)")
    lines.append("(one variant, with the real CLI and Triton: python test/fuzzing.py --check 'NAME')")
    return "\n".join(lines)


def test_variants_are_deterministic_and_cover_every_mutation():
    sources = fuzzing.source_files()
    assert len(sources) >= 10, f"too few sources: {[s.id for s in sources]}"
    a = fuzzing.generate_variants(sources)
    b = fuzzing.generate_variants(sources)
    assert [(v.name, v.data, v.args) for v in a] == [(v.name, v.data, v.args) for v in b]
    assert len({v.name for v in a}) == len(a), "variant names must be unique"
    assert len(a) >= MIN_VARIANTS
    missing = set(fuzzing.MUTATIONS) - {v.mutation for v in a}
    assert not missing, f"mutations that produced no variant: {missing}"
    # a name alone reproduces a variant (what the failure messages tell developers to do)
    for v in a[:: max(1, len(a) // 25)]:
        again = fuzzing.variant_by_name(v.name, sources)
        assert (again.data, again.args) == (v.data, v.args), v.name
    # the unterminated-quote variants really have 30+ characters after the quote on its line
    for v in (v for v in a if v.mutation == "unterminated_quote"):
        line, col = (int(x.split("=")[1]) for x in v.name.split("@")[1].split(","))
        text = v.data.decode().splitlines()[line - 1]
        assert text[col - 1] == '"' and len(text) - col >= 30, v.name


def test_cli_contract(campaign):
    """Every variant in the workers: no traceback, no hang, exit 0/1, one-line errors, -o kept."""
    assert sum(r.mode == "worker" for r in campaign.results) >= MIN_VARIANTS
    failures = campaign.failures(modes=("worker",), oracle=False)
    if failures:
        pytest.fail(_report("variants breaking ttopt-opt's contract", failures, campaign), pytrace=False)


def test_cli_contract_as_real_processes(campaign):
    """The same contract, ten variants through the true entry point (two of them via stdin)."""
    runs = [r for r in campaign.results if r.mode != "worker"]
    assert len(runs) == len(fuzzing.PROCESS_CATEGORIES)
    assert {r.mode for r in runs} == {"process", "stdin"}
    failures = campaign.failures(modes=("process", "stdin"), oracle=False)
    if failures:
        pytest.fail(_report("variants breaking the contract as real processes", failures, campaign), pytrace=False)


def test_triton_valid_input_gives_triton_valid_output(campaign):
    """When Triton accepts the input and ttopt exits 0, Triton accepts the output; a round trip
    (no passes) leaves Triton's own print of the module unchanged (no op dropped)."""
    checked = [r for r in campaign.results if r.code == 0 and r.triton_in and r.triton_in.get("ok")]
    assert len(checked) >= 50, "too few variants that both Triton and ttopt accept"
    failures = campaign.failures(oracle=True)
    if failures:
        pytest.fail(_report("Triton-valid inputs that ttopt made invalid or changed", failures, campaign), pytrace=False)


def _ratchet(found: list, limit: int, constant: str, what: str, why) -> None:
    by_cat = collections.Counter(r.variant.mutation for r in found)
    report = "\n".join([
        f"{what}: {len(found)} (ratchet {constant}: at most {limit}); by mutation: "
        f"{dict(sorted(by_cat.items()))}",
        *(f"  {r.variant.name}: {why(r)}"[:300] for r in found[:10]),
    ])
    print(report)
    if len(found) > limit:
        pytest.fail(
            f"{report}\nmore than before: a regression (or the variants changed: then re-measure "
            f"and set {constant} in test/test_fuzz.py)", pytrace=False,
        )
    if len(found) < limit:
        print(f"ratchet: lower {constant} to {len(found)} in test/test_fuzz.py")


def test_accepted_but_triton_rejects_ratchet(campaign):
    """The verifier leaves out what layouts (opaque text) would need: ttopt accepts a few inputs that Triton rejects.  Never more."""
    _ratchet(
        campaign.accepted_but_triton_rejects(), ACCEPTED_BUT_TRITON_REJECTS_MAX[campaign.sources_kind],
        "ACCEPTED_BUT_TRITON_REJECTS_MAX", "accepted by ttopt, rejected by Triton 3.6",
        lambda r: (r.triton_in or {}).get("diag") or (r.triton_in or {}).get("message"),
    )


def test_rejected_but_triton_accepts_ratchet(campaign):
    """Inputs that Triton accepts and ttopt rejects (one-line modules, a #loc alias on the line
    of another statement...).  NUL bytes are left out: MLIR's lexer skips a NUL inside a file,
    whether ttopt rejects them is its own decision."""
    _ratchet(
        campaign.rejected_but_triton_accepts(exclude={"nul"}), REJECTED_BUT_TRITON_ACCEPTS_MAX[campaign.sources_kind],
        "REJECTED_BUT_TRITON_ACCEPTS_MAX", "rejected by ttopt, accepted by Triton 3.6",
        lambda r: (fuzzing._first_lines(r.stderr, 1) or [""])[0],
    )
