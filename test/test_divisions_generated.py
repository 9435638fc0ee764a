"""div-chain and recip-hoist on generated kernels: random products and quotients of scalars,
rows and tiles, lifted between them by tt.splat / tt.expand_dims / tt.broadcast, some inside
scf.for loops; every result stored.  For each kernel and each of ``div-chain``,
``recip-hoist`` and ``all``: the output verifies after every pass, Triton 3.6 accepts it,
and it runs on the CPU (ttopt.interp) writing the same elements within a few ulps.

The bound: with only multiplies and divisions (no sums, so no cancellation), every stored
value of either version is within (number of roundings) / 2 ulps of the exact one, both
versions have at most ~2 * 14 roundings here: 32 ulps is far above that and far below
any wrong rewrite (a wrong operand changes a value by a factor, not by ulps).
"""

import random

import pytest

import ttopt
from ttopt.interp import compare
from ttopt.oracle import triton_accepts

SHAPES = {"S": "f32", "V": "tensor<8xf32>", "R": "tensor<8x1xf32>", "C": "tensor<1x16xf32>",
          "F": "tensor<8x16xf32>"}
ULPS = 32


class _Gen:
    def __init__(self, seed: int):
        self.rnd = random.Random(seed)
        self.lines: list[str] = []
        self.n = 0
        self.stores = 0
        self.used: set[str] = set()
        self.divisors: set[str] = set()

    def name(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def emit(self, ind: str, text: str) -> str:
        v = self.name()
        self.lines.append(f"{ind}{v} = {text}")
        return v

    def to_tile(self, ind: str, v: str, shape: str) -> str:
        """``v`` lifted to the 8x16 tile."""
        if shape == "S":
            return self.emit(ind, f"tt.splat {v} : f32 -> tensor<8x16xf32>")
        if shape == "V":
            v = self.emit(ind, f"tt.expand_dims {v} {{axis = 1 : i32}} : tensor<8xf32> -> tensor<8x1xf32>")
            shape = "R"
        if shape in ("R", "C"):
            return self.emit(ind, f"tt.broadcast {v} : {SHAPES[shape]} -> tensor<8x16xf32>")
        return v

    def store(self, ind: str, v: str, shape: str) -> None:
        t = self.to_tile(ind, v, shape)
        off = self.emit(ind, f"arith.constant dense<{16 * 8 * self.stores}> : tensor<8x16xi32>")
        idx = self.emit(ind, f"arith.addi %idx, {off} : tensor<8x16xi32>")
        ptr = self.emit(ind, f"tt.addptr %os, {idx} : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>")
        self.lines.append(f"{ind}tt.store {ptr}, {t} : tensor<8x16x!tt.ptr<f32>>")
        self.stores += 1

    def ops(self, ind: str, pool: dict, count: int, depth: int) -> None:
        """``count`` random ops (one may be a loop of more); then every product or quotient
        of this block that nothing uses is stored."""
        rnd = self.rnd
        pool = {k: list(v) for k, v in pool.items()}
        made: list[tuple[str, str]] = []
        for _ in range(count):
            r = rnd.random()
            if r < 0.12 and depth == 0:
                self.lines.append(f"{ind}scf.for %i{self.n} = %c0 to %c2 step %c1 : i32 {{")
                self.n += 1
                self.ops(ind + "  ", pool, rnd.randint(2, 5), depth + 1)
                self.lines.append(f"{ind}}}")
                continue
            if r < 0.35:  # a lift
                kind = rnd.choice(["SR", "SF", "VR", "RF", "CF", "SV", "SC"])
                src, dst = kind
                v = rnd.choice(pool[src][-3:])
                self.used.add(v)
                if src == "S":
                    t = SHAPES[dst]
                    out = self.emit(ind, f"tt.splat {v} : f32 -> {t}")
                elif kind == "VR":
                    out = self.emit(ind, f"tt.expand_dims {v} {{axis = 1 : i32}} : tensor<8xf32> -> tensor<8x1xf32>")
                else:
                    out = self.emit(ind, f"tt.broadcast {v} : {SHAPES[src]} -> tensor<8x16xf32>")
                pool[dst].append(out)
                if dst == "F":
                    pool["L"].append(out)  # (lifts to the tile, visible in this block)
                continue
            shape = rnd.choice(["S", "V", "R", "C", "F", "F"])
            op = "mulf" if rnd.random() < 0.25 else "divf"
            x = pool[shape][-1] if rnd.random() < 0.6 else rnd.choice(pool[shape])
            fresh = [v for v in pool[shape] if v not in self.divisors]  # chains that pay
            if rnd.random() < 0.2:  # c / (a / b)
                x, y = rnd.choice(pool[shape]), pool[shape][-1]
            elif shape == "F" and pool["L"] and rnd.random() < 0.4:  # x / L(s)
                y = rnd.choice(pool["L"][-3:])
            elif fresh and rnd.random() < 0.6:
                y = rnd.choice(fresh)
            else:
                y = rnd.choice(pool[shape][-3:]) if rnd.random() < 0.5 else rnd.choice(pool[shape])
            if op == "divf":
                self.divisors.add(y)
            flags = " fastmath<fast>" if rnd.random() < 0.1 else ""
            v = self.emit(ind, f"arith.{op} {x}, {y}{flags} : {SHAPES[shape]}")
            self.used.update((x, y))
            pool[shape].append(v)
            made.append((v, shape))
        for v, shape in made:
            if v not in self.used:
                self.store(ind, v, shape)

    def kernel(self) -> str:
        head = [
            "module {",
            "  tt.func public @k(%ps: !tt.ptr<f32>, %pv: !tt.ptr<f32>, %pr: !tt.ptr<f32>, %pf: !tt.ptr<f32>, %o: !tt.ptr<f32>) {",
            "    %c0 = arith.constant 0 : i32",
            "    %c1 = arith.constant 1 : i32",
            "    %c2 = arith.constant 2 : i32",
            "    %r8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>",
            "    %r16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>",
            "    %rows = tt.expand_dims %r8 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>",
            "    %c16 = arith.constant dense<16> : tensor<8x1xi32>",
            "    %rowoff = arith.muli %rows, %c16 : tensor<8x1xi32>",
            "    %cols = tt.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>",
            "    %rb = tt.broadcast %rowoff : tensor<8x1xi32> -> tensor<8x16xi32>",
            "    %cb = tt.broadcast %cols : tensor<1x16xi32> -> tensor<8x16xi32>",
            "    %idx = arith.addi %rb, %cb : tensor<8x16xi32>",
            "    %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>",
        ]
        pool = {"S": [], "V": [], "R": [], "C": [], "F": [], "L": []}
        for k in range(5):
            p = f"%sp{k}"
            head.append(f"    %sk{k} = arith.constant {k} : i32")
            head.append(f"    {p} = tt.addptr %ps, %sk{k} : !tt.ptr<f32>, i32")
            head.append(f"    %s{k} = tt.load {p} : !tt.ptr<f32>")
            pool["S"].append(f"%s{k}")
        for k in range(3):
            head += [
                f"    %pvs{k} = tt.splat %pv : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>",
                f"    %pva{k} = tt.addptr %pvs{k}, %r8 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>",
                f"    %vv{k} = tt.load %pva{k} : tensor<8x!tt.ptr<f32>>",
                f"    %prs{k} = tt.splat %pr : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>",
                f"    %pra{k} = tt.addptr %prs{k}, %rows : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>",
                f"    %rr{k} = tt.load %pra{k} : tensor<8x1x!tt.ptr<f32>>",
                f"    %pcs{k} = tt.splat %pr : !tt.ptr<f32> -> tensor<1x16x!tt.ptr<f32>>",
                f"    %pca{k} = tt.addptr %pcs{k}, %cols : tensor<1x16x!tt.ptr<f32>>, tensor<1x16xi32>",
                f"    %cc{k} = tt.load %pca{k} : tensor<1x16x!tt.ptr<f32>>",
                f"    %pfs{k} = tt.splat %pf : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>",
                f"    %pfa{k} = tt.addptr %pfs{k}, %idx : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>",
                f"    %ff{k} = tt.load %pfa{k} : tensor<8x16x!tt.ptr<f32>>",
            ]
            pool["V"].append(f"%vv{k}")
            pool["R"].append(f"%rr{k}")
            pool["C"].append(f"%cc{k}")
            pool["F"].append(f"%ff{k}")
        self.lines = head
        self.ops("    ", pool, self.rnd.randint(6, 14), 0)
        self.lines += ["    tt.return", "  }", "}"]
        return "\n".join(self.lines) + "\n"


def generated(seed: int) -> str:
    return _Gen(seed).kernel()


def test_generated_kernels_validate():
    totals = {"div-chain": 0, "recip-hoist": 0}
    for seed in range(60):
        text = generated(seed)
        for passes in (["div-chain"], ["recip-hoist"], ["all"]):
            result = ttopt.run_pipeline(text, passes, f"gen{seed}", verify_each=True)
            for s in result.stats:
                if s.name in totals and passes != ["all"]:
                    totals[s.name] += s.total
            res = compare(text, result.text, seeds=1, pids=[(0, 0, 0)], ulps=ULPS)
            assert res.ok, (seed, passes, res.message)
            if passes == ["all"]:
                accepted = triton_accepts(result.text, ".ttir")
                assert accepted.ok, (seed, accepted)
    # the generator does make what both passes rewrite
    assert totals["div-chain"] >= 20 and totals["recip-hoist"] >= 20, totals
