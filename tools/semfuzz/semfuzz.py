"""Semantic fuzzing of the verifier: mutations aimed at what a verifier checks (a number, an
element type, a dimension, an operand, an op's name, an enum keyword, a layout alias or a
layout's number, an attribute dictionary or an operand dropped, two operands swapped, a type
replaced, a line duplicated or moved), each variant's verdict by ttopt against Triton's.

    python3 tools/semfuzz/semfuzz.py run SEED N OUT      # 3.6 texts (fixtures + corpus sample),
                                                         # Triton 3.6 in the project's venv
    python3 tools/semfuzz/semfuzz.py report OUT          # the disagreements of a run
    python3 tools/semfuzz/semfuzz.py release VERSION SEED N   # a release's own fixtures,
                                                         # that release's Triton (tools/versions)

`run` reads each variant with ttopt (``--triton-version 3.6``: a text of no sign is otherwise
checked as leniently as its most lenient release) and asks Triton 3.6; a Triton crash
restarts the child (reported as CRASH, not a disagreement).  `release` reads each variant as
VERSION and asks VERSION's Triton (tools/versions/oracle.py, in batches).  Run with the
project's venv python (`.venv/bin/python`).  Not a test: the fuzz test in CI
(test/fuzzing.py) has the three mutations of this kind that found bugs.
"""
import json, os, pathlib, random, re, subprocess, sys, glob

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / 'shared' / 'corpus'
NUM = re.compile(r'(?<![\w#.%^"-])-?\d+(?![\w.])')
ETYPE = re.compile(r'\b(f32|f16|bf16|i32|i64|i1|i8|i16|f64|f8E4M3FN|f8E5M2)\b')
SHAPE = re.compile(r'(?<=[<x])(\d+)(?=x)')
USE = re.compile(r'%[\w$.-]+(?:#\d+)?')
OPN = re.compile(r'(?<== )([a-z_]+\.[a-z_.]+)|^(\s*)([a-z_]+\.[a-z_.]+)(?= )')
ENUMS = ['slt','sle','sgt','sge','ult','ule','ugt','uge','eq','ne','olt','ole','ogt','oge','oeq','one','ord','uno','ueq','une','evict_last','evict_first','evict_normal','ca','cg','cv','wb','cs','wt','relaxed','acquire','release','acq_rel','gpu','cta','sys','add','max','min','fadd','umax','exch','xchg','and','or','xor']
ENUM = re.compile(r'\b(' + '|'.join(ENUMS) + r')\b')
ALIAS = re.compile(r'#(blocked\d*|shared\d*|mma\d*|linear\d*|smem|loc\d*)\b')
OPS = {}

def op_lines(lines):
    return [i for i, l in enumerate(lines) if (l.lstrip().startswith(('%', 'tt.', 'scf.', 'arith.', 'ttg.', 'ttng.', 'math.', 'cf.', '"')) and not l.startswith('#'))]

def strip_loc(line):
    k = line.find(' loc(')
    return (line[:k], line[k:]) if k >= 0 else (line, '')

def mutate(text, rng, kind):
    lines = text.split('\n')
    ols = op_lines(lines)
    if kind == 'layout':
        ls = [i for i, l in enumerate(lines) if l.startswith('#') and not l.startswith('#loc')]
        if not ls: return None
        i = rng.choice(ls); body = lines[i]
        ms = list(NUM.finditer(body))
        if not ms: return None
        m = rng.choice(ms)
        lines[i] = body[:m.start()] + str(rng.choice([0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 128, 256, -1, 7, 1024, 65536])) + body[m.end():]
        return '\n'.join(lines)
    if not ols: return None
    i = rng.choice(ols); code, loc = strip_loc(lines[i])
    if kind == 'num':
        ms = list(NUM.finditer(code))
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + str(rng.choice([0, 1, -1, 2, 3, 5, 7, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 1023, 2**31-1, 2**31, 2**32, -2**31-1, 2**63])) + code[m.end():]
    elif kind == 'etype':
        ms = list(ETYPE.finditer(code))
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + rng.choice(['f32','f16','bf16','i32','i64','i1','i8','i16','f64','f8E4M3FN','f8E5M2','index','i128','f8E4M3FNUZ','tf32']) + code[m.end():]
    elif kind == 'shape':
        ms = list(SHAPE.finditer(code))
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + str(rng.choice([1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 0])) + code[m.end():]
    elif kind == 'use':
        ms = [m for m in USE.finditer(code) if m.start() > code.find('=')]
        defs = sorted({m.group() for l in lines for m in USE.finditer(strip_loc(l)[0])})
        if not ms or not defs: return None
        m = rng.choice(ms)
        code = code[:m.start()] + rng.choice(defs) + code[m.end():]
    elif kind == 'opname':
        m = re.search(r'(= |^\s*)"?([a-z_]+)\.([a-z_.]+)', code)
        if not m: return None
        dialect = m.group(2)
        names = OPS.get(dialect)
        if not names: return None
        code = code[:m.start(2)] + rng.choice(names) + code[m.end(3):]
    elif kind == 'enum':
        ms = list(ENUM.finditer(code))
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + rng.choice(ENUMS) + code[m.end():]
    elif kind == 'alias':
        ms = list(ALIAS.finditer(code))
        if not ms: return None
        m = rng.choice(ms)
        alist = sorted({'#' + a.group(1) for a in ALIAS.finditer(text)})
        code = code[:m.start()] + rng.choice(alist) + code[m.end():]
    elif kind == 'dropattr':
        ms = list(re.finditer(r' \{[^{}]*\}|<\{[^{}]*\}>', code))
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + code[m.end():]
    elif kind == 'dropoperand':
        ms = [m for m in re.finditer(r', %[\w$.-]+(?:#\d+)?|%[\w$.-]+(?:#\d+)?, ', code) if m.start() > code.find('=')]
        if not ms: return None
        m = rng.choice(ms)
        code = code[:m.start()] + code[m.end():]
    elif kind == 'swapops':
        ms = [m for m in USE.finditer(code) if m.start() > code.find('=')]
        if len(ms) < 2: return None
        a, b = rng.sample(ms, 2)
        if a.start() > b.start(): a, b = b, a
        code = code[:a.start()] + b.group() + code[a.end():b.start()] + a.group() + code[b.end():]
    elif kind == 'droptype':
        ms = list(re.finditer(r'(?<=[:(,] )(tensor<[^<>]*(?:<[^<>]*(?:<[^<>]*>)*[^<>]*>)*[^<>]*>|![a-z.]+<[^<>]*(?:<[^<>]*>)*[^<>]*>|[if]\d+)', code))
        if not ms: return None
        m = rng.choice(ms)
        alts = sorted({x.group() for l in lines for x in re.finditer(r'(?<=[:(,] )(tensor<[^<>]*(?:<[^<>]*(?:<[^<>]*>)*[^<>]*>)*[^<>]*>|[if]\d+)', strip_loc(l)[0])})
        code = code[:m.start()] + rng.choice(alts) + code[m.end():]
    elif kind == 'dupline':
        j = rng.choice(ols)
        lines.insert(j, lines[i])
        return '\n'.join(lines)
    elif kind == 'moveline':
        j = rng.choice(ols)
        l = lines.pop(i); lines.insert(j, l)
        return '\n'.join(lines)
    else:
        raise ValueError(kind)
    lines[i] = code + loc
    return '\n'.join(lines)

KINDS = ['swapops', 'droptype', 'swapops', 'droptype', 'num', 'etype', 'shape', 'use', 'opname', 'enum', 'alias', 'dropattr', 'dropoperand', 'layout', 'dupline', 'moveline']

def child(jobs_path, out_path):
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault('PYTHONDONTWRITEBYTECODE', '1')
    from ttopt.oracle import triton_accepts
    from ttopt.pipeline import optimize
    from ttopt.errors import TTOptError, TTOptInternalError
    jobs = [json.loads(l) for l in open(jobs_path)]
    done = set()
    if os.path.exists(out_path):
        done = {json.loads(l)['name'] for l in open(out_path)}
    with open(out_path, 'a') as out:
        for j in jobs:
            if j['name'] in done: continue
            out.write(json.dumps({'name': j['name'], 'started': True}) + '\n'); out.flush()
            text = j['text']; suf = j['suffix']
            r = {'name': j['name']}
            try:
                o = optimize(text, ['redundant-load', 'redundant-reduce', 'div-chain'], 'in' + suf, triton_version='3.6')
                r['ttopt'] = 'ok'
            except TTOptInternalError as e:
                r['ttopt'] = 'internal: ' + str(e)[:300]; o = None
            except TTOptError as e:
                r['ttopt'] = 'err: ' + str(e)[:300]; o = None
            except Exception as e:
                r['ttopt'] = 'EXC: ' + repr(e)[:300]; o = None
            t = triton_accepts(text, suf)
            r['triton'] = 'ok' if t.ok else 'err: ' + t.message[-300:]
            if o is not None and t.ok:
                t2 = triton_accepts(o, suf)
                r['out'] = 'ok' if t2.ok else 'err: ' + t2.message[-300:]
            out.write(json.dumps(r) + '\n'); out.flush()

def main():
    seed = int(sys.argv[1]); n = int(sys.argv[2]); outdir = pathlib.Path(sys.argv[3]); outdir.mkdir(exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from ttopt.dialects import DIALECTS
    for d in DIALECTS:
        for op in d.operations:
            dn, rest = op.name.split('.', 1)
            OPS.setdefault(dn, []).append(rest)
    srcs = sorted(glob.glob(str(ROOT / 'test/fixtures/versions/3.6.0/*/*.tt*ir')))
    corpus = sorted(glob.glob(str(CORPUS / '**' / '*.tt*ir'), recursive=True))
    corpus = [c for c in corpus if os.path.getsize(c) < 20000]
    rng = random.Random(seed)
    srcs += rng.sample(corpus, min(60, len(corpus)))
    srcs += sorted(glob.glob(str(CORPUS / 'small' / '*.tt*ir')))
    jobs = []
    k = 0
    while len(jobs) < n and k < n * 5:
        k += 1
        s = rng.choice(srcs); kind = rng.choice(KINDS)
        text = pathlib.Path(s).read_text()
        m = mutate(text, rng, kind)
        if m is None or m == text: continue
        jobs.append({'name': f'{os.path.relpath(s, ROOT.parent)}:{kind}#{k}', 'text': m, 'suffix': pathlib.Path(s).suffix})
    jp = outdir / 'jobs.jsonl'
    jp.write_text(''.join(json.dumps(j) + '\n' for j in jobs))
    op = outdir / 'results.jsonl'
    while True:
        p = subprocess.run([sys.executable, __file__, 'child', str(jp), str(op)], cwd=str(ROOT), timeout=3600)
        res = [json.loads(l) for l in open(op)]
        names_done = {r['name'] for r in res if 'started' not in r}
        started = [r['name'] for r in res if 'started' in r]
        crashed = [s for s in started if s not in names_done]
        if p.returncode == 0: break
        with open(op, 'a') as f:
            for c in crashed:
                if c not in names_done:
                    f.write(json.dumps({'name': c, 'ttopt': '?', 'triton': 'CRASH'}) + '\n')
    print('done')

def report(outdir):
    res = [json.loads(l) for l in open(pathlib.Path(outdir) / 'results.jsonl') if 'started' not in l]
    import collections
    c = collections.Counter()
    bad = []
    for r in res:
        t, tr = r['ttopt'], r['triton']
        if tr == 'CRASH': c['triton crash'] += 1; continue
        if t.startswith(('internal', 'EXC')): c['TTOPT BUG'] += 1; bad.append(r); continue
        if t == 'ok' and tr != 'ok': c['ACCEPTED-BUT-TRITON-REJECTS'] += 1; bad.append(r); continue
        if t != 'ok' and tr == 'ok': c['REJECTED-BUT-TRITON-ACCEPTS'] += 1; bad.append(r); continue
        if r.get('out', 'ok') != 'ok': c['OUTPUT REJECTED'] += 1; bad.append(r); continue
        c['agree ' + ('ok' if t == 'ok' else 'err')] += 1
    print(len(res), dict(c))
    for r in bad: print(json.dumps(r)[:700])


if __name__ == '__main__':
    if sys.argv[1] == 'child': child(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'run': sys.argv[1:] = sys.argv[2:]; main()
    elif sys.argv[1] == 'report': report(sys.argv[2])
    elif sys.argv[1] == 'release':
        import release
        release.main(*sys.argv[2:])
    else: raise SystemExit(__doc__)
