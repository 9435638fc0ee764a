"""semfuzz.py release VERSION SEED N: a release's own fixtures mutated, ttopt (read as that
release) against that release's Triton."""
import glob, json, os, pathlib, random, subprocess, sys, tempfile
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import semfuzz as F
def main(version, seed, n):
    seed, n = int(seed), int(n)
    from ttopt.dialects import DIALECTS
    for d in DIALECTS:
        for op in d.operations:
            dn, rest = op.name.split('.', 1)
            F.OPS.setdefault(dn, []).append(rest)
    out = pathlib.Path(tempfile.mkdtemp(prefix=f'semfuzz-{version}-{seed}-'))
    srcs = sorted(glob.glob(str(ROOT / 'test' / 'fixtures' / 'versions' / version / '*' / '*.tt*ir')))
    rng = random.Random(seed)
    files = {}
    k = 0
    while len(files) < n and k < n * 5:
        k += 1
        s = rng.choice(srcs); kind = rng.choice(F.KINDS)
        text = pathlib.Path(s).read_text()
        m = F.mutate(text, rng, kind)
        if m is None or m == text: continue
        p = out / f'{k}_{kind}_{pathlib.Path(s).parent.name}_{pathlib.Path(s).name}'
        p.write_text(m); files[str(p)] = s
    from ttopt.pipeline import optimize
    from ttopt.errors import TTOptError, TTOptInternalError
    from ttopt.dialects import versions
    res = {}
    for p in files:
        t = pathlib.Path(p).read_text()
        try:
            optimize(t, ['redundant-load', 'redundant-reduce', 'div-chain'], p, triton_version=versions.show(versions.parse_release(version)))
            res[p] = 'ok'
        except TTOptInternalError as e:
            res[p] = 'internal: ' + str(e)[:200]
        except TTOptError as e:
            res[p] = 'err: ' + str(e)[:200]
        except Exception as e:
            res[p] = 'EXC: ' + repr(e)[:200]
    def oracle(fs):
        r = subprocess.run(['python3', str(ROOT / 'tools' / 'versions' / 'oracle.py'), 'check', version, *fs], capture_output=True, text=True)
        try:
            return {x['file']: x for x in json.loads(r.stdout)['results']}
        except Exception:
            if len(fs) == 1:
                return {fs[0]: {'crashed': True}}
            out = {}
            for f in fs: out.update(oracle([f]))
            return out
    tri = {}
    fl = list(files)
    for i in range(0, len(fl), 40):
        tri.update(oracle(fl[i:i+40]))
    bad = 0
    for p in files:
        t = tri.get(p)
        o = res[p]
        if t is None or t.get('crashed'):
            continue
        if o.startswith(('internal', 'EXC')) or (o == 'ok') != t['ok']:
            bad += 1
            print('==', os.path.basename(p), '| ttopt:', o[:160], '| triton:', 'ok' if t['ok'] else str(t.get('error'))[-200:])
    print(version, len(files), 'disagreements', bad)

