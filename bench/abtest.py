"""The A/B engine behind ``bench.override`` and ``bench.tune``: dump, rewrite, time interleaved,
compare bit for bit, count SASS, classify.

Steps (on a GPU machine; ``run_all`` does them in order):

1. collect: kernel modules (``get_args()``/``call(args)``) are copied under the work folder.
2. tune + dump (``bench.runner tune``, parallel processes, fresh Triton caches): each module
   runs once, Inductor autotunes, the chosen config is recorded; TRITON_KERNEL_DUMP writes
   every compiled config's IR to the module's own dump folder ``dump/<model>__<name>/<H>/``.
3. rewrite (CPU, parallel): for each dumped ``.ttir``, ttopt runs the pipeline (and any
   extra candidate pipelines); a module any of whose configs changed is a candidate.  Override
   folders in Triton's layout: ``override/opt/<H>/<kernel>.ttir`` (the rewrite),
   ``override/null/<H>/<kernel>.ttir`` (ttopt's round trip of the same file, no pass: the
   control), ``override/<candidate>/...``.
4. time (``bench.worker``, one long-lived process per variant, each with its own fresh Triton
   cache, the override variants with TRITON_KERNEL_OVERRIDE): per kernel, every variant loads
   the module with the baseline's config pinned, runs it on fixed-seed inputs (outputs saved;
   the baseline runs twice, for its own spread), and captures a CUDA graph of N calls (N =
   ``rep_ms`` over the baseline's time per plain launch, launch overhead included, so a replay
   of small kernels holds less than ``rep_ms`` of GPU work).  Then ``rounds`` rounds, each one replay
   of every variant in a rotating order, one process on the GPU at a time.  Two sets of
   workers alternate: while one times kernel k, the other compiles kernel k+1.
5. judge: the speedup of each variant over the baseline and over the null override, medians
   with paired-bootstrap 95% CIs (``bench.stats``); outputs compared bit for bit with the
   baseline and its reruns; SASS counts and registers of each variant's dumped cubin
   (``bench.sass``); bytes moved over time against the measured copy bandwidth.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pathlib
import re
import select
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from bench import sass as sass_mod
from bench import stats
from ttopt.decisions import ttir_digest
from bench.variants import run_variant

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = "@@ttopt@@ "
NOT_REWRITTEN = "not rewritten (chosen config)"
OP_PATTERNS = {"tt.load": r"\btt\.load\b", "arith.divf": r"\barith\.divf\b", "tt.reduce": r"\"tt\.reduce\""}


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def model_name(kernel_dir: pathlib.Path) -> str:
    return kernel_dir.parent.name if kernel_dir.name == "kernels" else kernel_dir.name


_JIT_DEF = re.compile(r"@triton\.jit\s*\ndef\s+(\w+)\s*\(")


def kernel_name(source: str, fallback: str) -> str:
    m = _JIT_DEF.search(source)
    return m.group(1) if m else fallback


def entry_id(e: dict) -> str:
    return f"{e['model']}__{e['name']}"


def file_stem(kernel: str) -> str:
    """Triton names dump and override files ``src.name[:150]``."""
    return kernel[:150]


# ---- 1. collect ------------------------------------------------------------------------------


def collect(dirs: list[pathlib.Path], work: pathlib.Path, limit: int = 0) -> list[dict]:
    entries = []
    for d in dirs:
        model = model_name(d)
        dst = work / "modules" / model
        dst.mkdir(parents=True, exist_ok=True)
        files = sorted(d.glob("*.py"))
        if limit:
            files = files[:limit]
        for f in files:
            text = f.read_text(errors="replace")
            if "def get_args" not in text or "def call" not in text:
                continue
            shutil.copy(f, dst / f.name)
            entries.append({"model": model, "name": f.stem, "kernel": kernel_name(text, f.stem),
                            "path": str(dst / f.name), "key": f"{model}/{f.stem}"})
    return entries


# ---- 2. tune + dump (bench.runner in parallel processes) ----------------------------------------


def _progress(total: int, tag: str):
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=tag, file=sys.stderr, leave=True, mininterval=2.0)

        def update(n):
            if n is None:
                bar.close()
            elif n:
                bar.update(n)

        return update
    except ImportError:
        state = {"done": 0, "shown": -1}

        def update(n):
            if n is None:
                return
            state["done"] += n
            pct = 100 * state["done"] // max(total, 1)
            if pct // 10 != state["shown"] // 10:
                state["shown"] = pct
                print(f"[{tag}] {state['done']}/{total}", file=sys.stderr, flush=True)

        return update


def run_phase(phase: str, entries: list[dict], work: pathlib.Path, env, tag: str, workers: int = 1) -> dict:
    """``bench.runner PHASE`` over ``entries`` in ``workers`` processes, with a progress bar."""
    shards = [entries[i::workers] for i in range(workers)] if workers > 1 else [entries]
    shards = [s for s in shards if s]
    procs = []
    for i, shard in enumerate(shards):
        spec = work / f"{tag}.{i}.spec.json"
        result = work / f"{tag}.{i}.result.json"
        spec.write_text(json.dumps({"kernels": shard, "work": str(work), "result": str(result),
                                    "runs": 1, "rep_ms": 1.0}))
        proc_env = dict(os.environ, **(env(i) if callable(env) else env))
        proc_env["PYTHONPATH"] = str(ROOT) + os.pathsep + proc_env.get("PYTHONPATH", "")
        logf = open(work / f"{tag}.{i}.log", "w")
        procs.append((subprocess.Popen([sys.executable, "-m", "bench.runner", phase, str(spec)],
                                       env=proc_env, stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT),
                      logf, result, work / f"{tag}.{i}.log"))
    bar = _progress(len(entries), tag)
    done = 0
    while any(p.poll() is None for p, *_ in procs):
        time.sleep(0.5)
        now = sum(path.read_text(errors="replace").count(f"[{phase}] ") for *_, path in procs)
        bar(now - done)
        done = now
    bar(None)
    merged: dict = {}
    for p, logf, result, _ in procs:
        logf.close()
        if result.exists():
            merged.update(json.loads(result.read_text()))
    return merged


def tune_and_dump(entries: list[dict], work: pathlib.Path, workers: int) -> list[dict]:
    for e in entries:
        e["dump_dir"] = str(work / "dump" / entry_id(e))
    tuned = run_phase("tune", entries, work,
                      lambda i: {"TRITON_CACHE_DIR": str(work / f"cache-tune-{i}"),
                                 "TORCHINDUCTOR_CACHE_DIR": str(work / f"inductor-tune-{i}"),
                                 "TRITON_KERNEL_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"},
                      "tune+dump", workers=workers)
    ok = []
    for e in entries:
        rec = tuned.get(e["key"], {})
        e["config"] = rec.get("config")
        e["tune_error"] = None if rec.get("ok") else (rec.get("error") or "no result")
        if rec.get("ok"):
            ok.append(e)
    return ok


# ---- 3. rewrite -------------------------------------------------------------------------------


@dataclass
class Pipelines:
    """The variants to build: ``opt`` (the main pipeline) and extra named candidates."""

    opt: list[str]
    extra: dict[str, list[str]] = field(default_factory=dict)

    def all(self) -> dict[str, list[str]]:
        return {"opt": self.opt, **self.extra}


def _rewrite_one(task):
    """Worker of the rewrite pool: one dumped .ttir through every pipeline."""
    ttir_path, pipelines = task
    text = pathlib.Path(ttir_path).read_text()
    out = {"path": ttir_path, "digest": ttir_digest(text), "variants": {}, "error": None}
    try:
        for name, passes in pipelines.items():
            r = run_variant(text, passes, ttir_path)
            out["variants"][name] = {"stats": r.stats, "changed": r.changed, "text": r.text if r.changed else None}
        if any(v["changed"] for v in out["variants"].values()):
            out["null_text"] = run_variant(text, [], ttir_path).text
    except Exception as e:  # a parse/pass failure of one kernel is reported, not fatal
        out["error"] = f"{type(e).__name__}: {e}"[:500]
    return out


def rewrite(entries: list[dict], work: pathlib.Path, pipelines: Pipelines, procs: int) -> list[dict]:
    """Run the pipelines on every dumped TTIR; write override folders; return candidates."""
    tasks, owner = [], {}
    for e in entries:
        dump = pathlib.Path(e["dump_dir"])
        for p in sorted(dump.glob(f"*/{file_stem(e['kernel'])}.ttir")):
            tasks.append((str(p), pipelines.all()))
            owner[str(p)] = e
    results = []
    if procs > 1 and len(tasks) > 1:
        with multiprocessing.get_context("fork").Pool(procs) as pool:
            results = pool.map(_rewrite_one, tasks, chunksize=4)
    else:
        results = [_rewrite_one(t) for t in tasks]
    names = list(pipelines.all())
    candidates: dict[str, dict] = {}
    for r in results:
        e = owner[r["path"]]
        path = pathlib.Path(r["path"])
        h, fname = path.parent.name, path.name
        e.setdefault("hashes", {})[h] = {"digest": r["digest"]}
        if r["error"]:
            e.setdefault("rewrite_errors", []).append(r["error"])
            continue
        if not any(v["changed"] for v in r["variants"].values()):
            continue
        c = candidates.setdefault(e["key"], e)
        c.setdefault("rewrites", {})
        texts = {}
        for name in names:
            v = r["variants"][name]
            if v["changed"]:
                target = work / "override" / name / h / fname
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(v["text"])
                texts[name] = v["text"]
                for p, n in v["stats"].items():
                    c["rewrites"].setdefault(name, {})
                    c["rewrites"][name][p] = c["rewrites"][name].get(p, 0) + n
        null_target = work / "override" / "null" / h / fname
        null_target.parent.mkdir(parents=True, exist_ok=True)
        null_target.write_text(r["null_text"])
        # a candidate pipeline whose text equals the main one's is not timed twice
        c.setdefault("same_as_opt", set())
        for name in names[1:]:
            if texts.get(name) is not None and texts.get(name) == texts.get("opt"):
                c["same_as_opt"].add(name)
            elif name in c["same_as_opt"]:
                c["same_as_opt"].discard(name)
        c.setdefault("changed_variants", set()).update(texts)
    out = []
    for c in candidates.values():
        c["variants"] = ["base", "null"] + [n for n in names if n in c["changed_variants"] and n not in c["same_as_opt"]]
        c["same_as_opt"] = sorted(c["same_as_opt"])
        c["changed_variants"] = sorted(c["changed_variants"])
        out.append(c)
    return sorted(out, key=lambda c: c["key"])


# ---- 4. time ----------------------------------------------------------------------------------


class WorkerError(RuntimeError):
    pass


class Worker:
    """One ``bench.worker`` process."""

    def __init__(self, variant: str, env: dict, logpath: pathlib.Path):
        self.variant = variant
        self.env = env
        self.logpath = logpath
        self.proc = None
        self.lines: list[str] = []
        self._buf = b""
        self.start()

    def start(self):
        """Start the process; ``wait_ready`` waits for it (torch's import takes seconds, so a
        set starts all its workers first, then waits)."""
        env = dict(os.environ, **self.env)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONUNBUFFERED"] = "1"
        self.logf = open(self.logpath, "a")
        # TTOPT_BENCH_WORKER: another worker program (a .py file), for tests of the protocol
        program = os.environ.get("TTOPT_BENCH_WORKER")
        cmd = [sys.executable, program] if program else [sys.executable, "-m", "bench.worker"]
        self.proc = subprocess.Popen(cmd + [self.variant], env=env, cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.logf)
        self._buf = b""

    def wait_ready(self):
        r = self.recv(timeout=300)
        if not r.get("ready"):
            raise WorkerError(f"{self.variant}: unexpected first reply {r}")

    def send(self, **req):
        self.lines = []
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise WorkerError(f"{self.variant}: worker gone ({e})") from e

    def recv(self, timeout: float) -> dict:
        deadline = time.time() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text.startswith(MARK):
                    return json.loads(text[len(MARK):])
                self.lines.append(text)
                self.logf.write(text + "\n")
            left = deadline - time.time()
            if left <= 0:
                raise WorkerError(f"{self.variant}: no reply in {timeout:.0f}s")
            ready, _, _ = select.select([fd], [], [], min(left, 5.0))
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise WorkerError(f"{self.variant}: worker exited (rc {self.proc.poll()})")
                self._buf += chunk
            elif self.proc.poll() is not None:
                raise WorkerError(f"{self.variant}: worker exited (rc {self.proc.poll()})")

    def call(self, timeout: float = 300, **req) -> dict:
        self.send(**req)
        return self.recv(timeout)

    def restart(self):
        self.kill()
        self.start()
        self.wait_ready()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'{"cmd": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()


class WorkerSet:
    """One worker per variant; all variants of one kernel."""

    def __init__(self, tag: str, variants: list[str], work: pathlib.Path):
        self.tag = tag
        self.workers: dict[str, Worker] = {}
        for v in variants:
            env = {"TRITON_CACHE_DIR": str(work / "cache" / tag / v),
                   "TORCHINDUCTOR_CACHE_DIR": str(work / "inductor" / tag / v),
                   "TRITON_ALWAYS_COMPILE": "1", "TRITON_KERNEL_DUMP": "1",
                   "TORCHINDUCTOR_COMPILE_THREADS": "1"}
            if v != "base":
                env.update({"TRITON_KERNEL_OVERRIDE": "1", "TRITON_OVERRIDE_DIR": str(work / "override" / v)})
            (work / "logs").mkdir(parents=True, exist_ok=True)
            self.workers[v] = Worker(v, env, work / "logs" / f"worker-{tag}-{v}.log")

    def wait_ready(self):
        for w in self.workers.values():
            w.wait_ready()

    def close(self):
        for w in self.workers.values():
            w.kill()


@dataclass
class Timing:
    samples: dict[str, list[float]]
    prepared: dict[str, dict]
    inner: int
    graph: bool
    override_lines: dict[str, list[str]]
    error: str | None = None


def _dump_dir(work, pass_tag, variant, e):
    return str(work / "dumps" / pass_tag / variant / entry_id(e))


def _out_dir(work, pass_tag, variant, e):
    return str(work / "outputs" / pass_tag / variant / entry_id(e))


def send_load(ws: WorkerSet, e: dict, variants: list[str], work: pathlib.Path, pass_tag: str):
    for v in variants:
        ws.workers[v].send(cmd="load", key=e["key"], path=e["path"], kernel=e["kernel"],
                           config=e.get("config"), dump_dir=_dump_dir(work, pass_tag, v, e))


def time_kernel(ws: WorkerSet, e: dict, variants: list[str], work: pathlib.Path, pass_tag: str,
                rounds: int, rep_ms: float, load_sent: bool) -> Timing:
    """Load (unless already sent), run, capture and time every variant of one kernel."""
    prepared: dict[str, dict] = {v: {} for v in variants}
    lines: dict[str, list[str]] = {v: [] for v in variants}
    if not load_sent:
        send_load(ws, e, variants, work, pass_tag)
    for v in variants:  # loads run in parallel in the workers; collect them
        r = ws.workers[v].recv(timeout=600)
        lines[v] += ws.workers[v].lines
        if not r.get("ok"):
            raise WorkerError(f"{v}: load: {r.get('error')}\n{r.get('traceback', '')}")
        prepared[v].update(r)
    for v in variants:  # GPU work: one variant at a time
        r = ws.workers[v].call(timeout=600, cmd="run", out_dir=_out_dir(work, pass_tag, v, e), rerun=(v == "base"))
        lines[v] += ws.workers[v].lines
        if not r.get("ok"):
            raise WorkerError(f"{v}: run: {r.get('error')}\n{r.get('traceback', '')}")
        prepared[v].update(r)
    t_est = max(prepared["base"].get("t_est_ms") or 0.0, 1e-4)
    inner = int(min(2000, max(1, round(rep_ms / t_est))))
    graph = True
    for v in variants:
        r = ws.workers[v].call(timeout=300, cmd="capture", inner=inner)
        if not r.get("ok"):
            raise WorkerError(f"{v}: capture: {r.get('error')}")
        graph = graph and r.get("graph", False)
    for v in variants:  # warm-up replays, discarded
        ws.workers[v].call(timeout=300, cmd="time", n=2)
    samples: dict[str, list[float]] = {v: [] for v in variants}
    for i in range(rounds):
        k = i % len(variants)
        order = variants[k:] + variants[:k]
        if (i // len(variants)) % 2:
            order = order[::-1]
        for v in order:
            r = ws.workers[v].call(timeout=300, cmd="time", n=1)
            if not r.get("ok"):
                raise WorkerError(f"{v}: time: {r.get('error')}")
            samples[v] += r["times_ms"]
    for v in variants:
        ws.workers[v].call(timeout=120, cmd="drop")
    return Timing(samples, prepared, inner, graph, lines)


def time_all(cands: list[dict], work: pathlib.Path, pass_tag: str, rounds: int, rep_ms: float,
             deadline: float | None = None) -> dict[str, Timing]:
    """Time every candidate, two worker sets alternating (one compiles while the other times)."""
    variants_all = sorted({v for c in cands for v in c["variants"]}, key=lambda v: (v != "base", v != "null", v))
    sets = [WorkerSet(f"{pass_tag}-a", variants_all, work), WorkerSet(f"{pass_tag}-b", variants_all, work)]
    for s in sets:
        s.wait_ready()
    results: dict[str, Timing] = {}
    bar = _progress(len(cands), f"time ({pass_tag})")
    load_sent = [False, False]
    try:
        for i, c in enumerate(cands):
            ws = sets[i % 2]
            if deadline is not None and time.time() > deadline:
                results[c["key"]] = Timing({}, {}, 0, False, {}, error="skipped: time budget spent")
                bar(1)
                continue
            try:
                if i + 1 < len(cands):
                    # the other set starts compiling the next kernel (CPU) while this one times
                    nxt, other = cands[i + 1], sets[(i + 1) % 2]
                    try:
                        send_load(other, nxt, nxt["variants"], work, pass_tag)
                        load_sent[(i + 1) % 2] = True
                    except WorkerError:
                        load_sent[(i + 1) % 2] = False
                results[c["key"]] = time_kernel(ws, c, c["variants"], work, pass_tag, rounds, rep_ms,
                                                load_sent[i % 2])
            except Exception as exc:  # noqa: BLE001 (one broken kernel must not stop the others)
                results[c["key"]] = Timing({}, {}, 0, False, {}, error=str(exc)[:3000])
                log(f"{c['key']}: {str(exc).splitlines()[0][:300]}")
                for w in ws.workers.values():  # a broken set starts afresh
                    try:
                        w.restart()
                    except WorkerError:
                        pass
            load_sent[i % 2] = False
            bar(1)
    finally:
        bar(None)
        for s in sets:
            s.close()
    return results


# ---- 5. judge ---------------------------------------------------------------------------------


def _load_outputs(path: pathlib.Path):
    import torch

    return torch.load(path, map_location="cpu", weights_only=False) if path.exists() else None


def _bits_equal(a, b):
    import torch

    if a.dtype != b.dtype or a.shape != b.shape:
        return None
    if a.dtype == torch.bool:
        return a == b
    size = a.element_size()
    dt = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return a.contiguous().view(dt) == b.contiguous().view(dt)


def compare(a: dict | None, b: dict | None) -> stats.Diff | None:
    """Bit-for-bit comparison of two saved output sets (``bench.worker.save_outputs``)."""
    from bench.report import relative_error

    if a is None or b is None or len(a["tensors"]) != len(b["tensors"]):
        return None
    n_diff, max_rel, equal = 0, 0.0, True
    for i, (x, y) in enumerate(zip(a["tensors"], b["tensors"])):
        eq = _bits_equal(x, y)
        if eq is None:
            return None
        nd = int((~eq).sum().item())
        n_diff += nd
        if nd:
            equal = False
            max_rel = max(max_rel, relative_error(x, y))
        if not a["full"] and a["digests"][i] != b["digests"][i]:
            equal = False  # a difference outside the sample
            n_diff = max(n_diff, 1)
    return stats.Diff(n_diff, max_rel, equal)


def _variant_dump(work, pass_tag, variant, e) -> dict:
    """SASS counts and TTIR op counts of the variant's own dump (the chosen config)."""
    d = pathlib.Path(_dump_dir(work, pass_tag, variant, e))
    stem = file_stem(e["kernel"])
    cubins = sorted(d.glob(f"*/{stem}.cubin"))
    info: dict = {}
    if cubins:
        info["hash"] = cubins[0].parent.name
        try:
            info["sass"] = sass_mod.analyze_cubin(str(cubins[0]))
        except Exception as exc:  # noqa: BLE001
            info["sass_error"] = str(exc)[:200]
        ttir = cubins[0].parent / f"{stem}.ttir"
        if ttir.exists():
            text = ttir.read_text()
            info["ops"] = {k: len(re.findall(p, text)) for k, p in OP_PATTERNS.items()}
        info["cubin_sha"] = hashlib.sha256(cubins[0].read_bytes()).hexdigest()
        ptx = cubins[0].parent / f"{stem}.ptx"
        if ptx.exists():
            t = ptx.read_text()
            info["ptx"] = {"ld.global": len(re.findall(r"\bld\.global", t)),
                           "div.f32": len(re.findall(r"\bdiv\.(?:full|rn|approx)\.f32", t)),
                           "L1::evict_last": len(re.findall(r"L1::evict_last", t)),
                           "L1::evict_first": len(re.findall(r"L1::evict_first", t))}
    return info


def judge(c: dict, t: Timing, work: pathlib.Path, pass_tag: str, copy_bw: float, l2_bytes: float,
          min_speedup: float) -> dict:
    """One report row for a timed candidate."""
    row = {"model": c["model"], "module": c["name"], "kernel": c["kernel"], "key": c["key"],
           "config": c.get("config"), "rewrites": c.get("rewrites", {}), "variants": c["variants"],
           "same_as_opt": c.get("same_as_opt", []), "pass": pass_tag}
    if t.error:
        row["error"] = t.error
        row["verdict"] = "error"
        return row
    base = t.samples["base"]
    row["inner"] = t.inner
    row["graph"] = t.graph
    row["rounds"] = len(base)
    row["t_ms"] = {v: statistics.median(s) for v, s in t.samples.items()}
    row["control_base_vs_null"] = stats.ratio_ci(base, t.samples["null"]).as_list()
    row["control_ok"] = stats.control_ok(stats.Ratio(*row["control_base_vs_null"]))
    row["bytes_args"] = t.prepared["base"].get("bytes_args")
    num_gb = t.prepared["base"].get("kernel_num_gb")
    row["bytes_moved"] = float(num_gb) * 1e9 if num_gb else float(row["bytes_args"] or 0)
    row["bytes_source"] = "inductor kernel_num_gb" if num_gb else "tensor arguments"
    row["dump"] = {v: _variant_dump(work, pass_tag, v, c) for v in c["variants"]}
    row["launcher"] = {v: {k: t.prepared[v].get(k) for k in ("n_regs", "n_spills", "shared", "num_warps", "num_stages",
                                                              "config", "pinned", "n_launchers")}
                       for v in c["variants"]}
    # Inductor kernels: every variant must run the config the baseline autotuned to
    row["config_pinned"] = (all(t.prepared[v].get("pinned") for v in c["variants"])
                            and len({t.prepared[v].get("config") for v in c["variants"]}) == 1) if c.get("config") else None
    row["null_cubin_identical"] = (row["dump"]["null"].get("cubin_sha") is not None
                                   and row["dump"]["null"].get("cubin_sha") == row["dump"]["base"].get("cubin_sha"))
    # numerics: the baseline against its own rerun (same process) and, when the null override
    # compiled to the very same cubin, against the null process's run (another process)
    outs = {v: _load_outputs(pathlib.Path(_out_dir(work, pass_tag, v, c)) / "run1.pt") for v in c["variants"]}
    rerun = _load_outputs(pathlib.Path(_out_dir(work, pass_tag, "base", c)) / "run2.pt")
    d_rerun = compare(rerun, outs["base"])
    d_null = compare(outs["null"], outs["base"])
    row["numerics_base_rerun"] = d_rerun.to_dict() if d_rerun else None
    row["numerics_null"] = d_null.to_dict() if d_null else None
    reruns = [d for d in (d_rerun, d_null if row["null_cubin_identical"] else None) if d is not None]
    bw, frac, cls = stats.roofline_class(row["bytes_moved"], row["t_ms"]["base"] / 1e3, copy_bw, l2_bytes)
    row["roofline"] = {"base": {"bw_GBps": bw / 1e9, "frac": frac, "class": cls}}
    row["variant_results"] = {}
    for v in c["variants"]:
        if v in ("base", "null"):
            continue
        vs_base = stats.ratio_ci(base, t.samples[v])
        vs_null = stats.ratio_ci(t.samples["null"], t.samples[v])
        verdict = stats.verdict(vs_base, vs_null, min_speedup, stats.Ratio(*row["control_base_vs_null"]))
        chosen = row["dump"]["base"].get("hash")
        rewritten = chosen is not None and (work / "override" / v / chosen / f"{file_stem(c['kernel'])}.ttir").exists()
        if not rewritten:
            # the pass changed other configs of this module, not the one autotuning chose: the
            # variants ran the same code
            verdict = NOT_REWRITTEN
        elif not row["control_ok"] and verdict != stats.NO_CHANGE:
            verdict = stats.NO_CHANGE + " (control failed)"
        d = compare(outs.get(v), outs["base"])
        rewrites = c.get("rewrites", {}).get(v, {})
        num_label, num_ok = (stats.numerics_verdict(d, reruns, rewrites) if d is not None
                             else ("outputs missing", False))
        ops_dump = row["dump"][v].get("ops")
        # applied: Triton said so ("Overriding kernel with file ..."), or the variant's own
        # dump carries the override's op counts and they differ from the baseline's
        printed = any(str(work / "override" / v) in ln for ln in t.override_lines.get(v, []))
        ofile = work / "override" / v / str(row["dump"][v].get("hash")) / f"{file_stem(c['kernel'])}.ttir"
        ops_override = ({k: len(re.findall(p, ofile.read_text())) for k, p in OP_PATTERNS.items()}
                        if ofile.exists() else None)
        expected_override = printed or (ops_override is not None and ops_override == ops_dump
                                        and ops_dump != row["dump"]["base"].get("ops"))
        bw_v, frac_v, cls_v = stats.roofline_class(row["bytes_moved"], row["t_ms"][v] / 1e3, copy_bw, l2_bytes)
        row["roofline"][v] = {"bw_GBps": bw_v / 1e9, "frac": frac_v, "class": cls_v}
        row["variant_results"][v] = {
            "speedup_vs_base": vs_base.as_list(), "speedup_vs_null": vs_null.as_list(),
            "verdict": verdict, "numerics": d.to_dict() if d else None, "numerics_label": num_label,
            "rewritten_in_chosen_config": rewritten,
            "numerics_ok": num_ok, "override_applied": expected_override, "override_printed": printed,
            "ops_in_dump": ops_dump, "ops_in_override": ops_override,
        }
    row["null_override_applied"] = any(str(work / "override" / "null") in ln for ln in t.override_lines.get("null", []))
    return row


# ---- device ceilings ---------------------------------------------------------------------------


def measure_copy_bandwidth(gib: float = 1.0, reps: int = 20) -> dict:
    """Device-to-device copy bandwidth (bytes read + written per second), median of ``reps``."""
    import statistics

    import torch

    n = int(gib * (1 << 30)) // 4
    a = torch.empty(n, dtype=torch.float32, device="cuda").uniform_()
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) / 1e3)
    t = statistics.median(ts)
    props = torch.cuda.get_device_properties(0)
    del a, b
    torch.cuda.empty_cache()
    return {"copy_bw_Bps": 2 * n * 4 / t, "copy_bytes": 2 * n * 4, "copy_s": t,
            "l2_bytes": getattr(props, "L2_cache_size", 50 << 20), "device": props.name,
            "sms": props.multi_processor_count}
