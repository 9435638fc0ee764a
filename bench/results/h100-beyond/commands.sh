# The commands behind bench/results/h100-beyond (issue 14: the rewrites beyond the paper).
# ttopt: commit dd57342.  Other sessions were editing ttopt/ in the checkout meanwhile, so the
# CPU commands ran in a snapshot of that commit plus these bench files:
#   rm -rf /tmp/bp_repo && mkdir /tmp/bp_repo && git archive dd57342 | tar -x -C /tmp/bp_repo
#   cp bench/beyond_*.py bench/beyond_device.sh /tmp/bp_repo/bench/ && cd /tmp/bp_repo
# and the GPU runs used a copy of dd57342's ttopt/ (.carry/snap/ttopt, swapped in by the script).

# --- CPU (this repository's .venv; 2 shared cores) -------------------------------------------
# where each rewrite fires (+ exact vs the paper's exact passes, same text?) and the SASS of
# every .ttir where exact/hoist-load/div-chain/recip-hoist fire (sm_90, Triton's ptxas)
python -m bench.beyond_paper --corpus ../shared/corpus --suites --synthetic --suite-dir /tmp/bp_suite_ttir \
    --extra regen-candidates=/tmp/cand_ttir/dump --jobs 2 \
    --json bench/results/h100-beyond/fires.json --md bench/results/h100-beyond/fires.md \
    --sass exact,hoist-load,div-chain,recip-hoist --sass-md bench/results/h100-beyond/sass_cpu.md
#   (/tmp/cand_ttir: `tar xzf cand_ttir.tar.gz` of run 1's $OUT: the TTIR the H100 dumped for the 8
#    modules of bench/results/h100-tune/kernels)
# recip-hoist's SASS over every corpus config where it fires
python -m bench.div_sass --recip-hoist ../shared/corpus/inductor-triton3.6-h200 --workers 2 --arch 90 \
    --out bench/results/h100-beyond/recip_sass_cpu.md --json bench/results/h100-beyond/recip_sass_cpu.json
# the corpus modules where recip-hoist fires -> .carry/recip/<model>/kernels (18 modules)
python - <<'EOF'
import json, pathlib, shutil
C = pathlib.Path('../shared/corpus/inductor-triton3.6-h200')
for r in json.load(open('bench/results/h100-beyond/fires.json'))['rows']:
    p = pathlib.Path(r['path'])
    if p.suffix == '.ttir' and 'inductor-triton3.6-h200' in r['path'] and sum(r['variants'].get('recip-hoist', {}).values()):
        t = pathlib.Path('.carry/recip') / p.parts[-4] / 'kernels' / f'{p.stem}.py'
        t.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(C / p.parts[-4] / 'kernels' / f'{p.stem}.py', t)
EOF
# wheels for the GPU machine (xdsl is not installed there)
python -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d .whl xdsl==0.74.0 immutabledict==4.3.1 ordered-set==4.1.0
mkdir -p .carry/snap && git archive dd57342 ttopt | tar -x -C .carry/snap

# --- GPU: the `run` tool, kind nvidia-h100-x1, carry [".whl", ".carry"] ---------------------
bash bench/beyond_device.sh main        # run 1 (scan-cand + tune), 2026-11-26 06:25 UTC, 367 s
bash bench/beyond_device.sh replicate   # run 2 (tune again, fresh machine), 06:32 UTC, 280 s
#   main = python3 -m bench.beyond_tune bench/results/h100-tune/kernels/*/kernels \
#              --pass hoist-load --pass redundant-load --pass redundant-reduce \
#              --candidate rh=recip-hoist --candidate dc=div-chain --candidate hl=hoist-load \
#              --candidate rlp=redundant-load-paper,redundant-reduce --workers 14 --time-budget 1 \
#              --out /tmp/res/scan-cand --work /tmp/work-scan          # no timing: what fires there
#          python3 -m bench.beyond_suite /tmp/suite/beyond-suite     # the 14 timed synthetic kernels
#          python3 -m bench.beyond_tune .carry/recip/*/kernels /tmp/suite/beyond-suite \
#              --pass hoist-load --pass redundant-load --pass redundant-reduce \
#              --candidate rh=recip-hoist --candidate dc=div-chain --candidate hl=hoist-load \
#              --rounds 30 --confirm-rounds 20 --workers 14 --time-budget $((LEFT - 170)) --out /tmp/res/tune --work /tmp/work
#          python3 -m bench.beyond_ulps /tmp/work --json /tmp/res/tune/ulps.json --md /tmp/res/tune/ulps.md
#   replicate = the last two commands again

# --- back on the CPU ----------------------------------------------------------------------------
python -m bench.tune_report bench/results/h100-beyond/run1 --compare bench/results/h100-beyond/run2 \
    > bench/results/h100-beyond/compare.md
python -m bench.beyond_report bench/results/h100-beyond/run1 bench/results/h100-beyond/run2 \
    --md bench/results/h100-beyond/tables.md
