#!/bin/bash
# The GPU runs behind bench/results/h100-beyond (issue 14: the rewrites beyond the paper).
#
#   bash bench/beyond_device.sh main       # scan the 8 regenerated-model candidates (no timing),
#                                          # then tune: the corpus kernels where recip-hoist fires
#                                          # (.carry/recip) + the SYNTHETIC suite (bench/beyond_suite.py)
#   bash bench/beyond_device.sh replicate  # the same tune again (run-to-run agreement)
#
# Needs (carried, git-ignored): .whl (xdsl 0.74 + immutabledict + ordered_set wheels, cp312),
# .carry/snap/ttopt (ttopt at the commit measured, so that edits in flight elsewhere cannot
# reach the run), .carry/recip/<model>/kernels (the corpus's kernel modules where recip-hoist
# fires in some config's TTIR: python -m bench.beyond_paper --write-fired).
set -u
MODE=${1:?main or replicate}
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
rm -rf /tmp/res /tmp/work /tmp/work-scan /tmp/suite  # a warm machine keeps /tmp between calls
mkdir -p "$OUT" /tmp/res
exec > >(tee -a /tmp/res/log.txt) 2>&1
el() { echo $(( $(date +%s) - T0 )); }

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
if [ -d .carry/snap/ttopt ]; then rm -rf ttopt && cp -r .carry/snap/ttopt ttopt; fi
date -u
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,driver_version --format=csv
python3 -c "import torch, triton, xdsl, ttopt; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
python3 -m bench.beyond_suite /tmp/suite/beyond-suite > /dev/null && ls /tmp/suite/beyond-suite | wc -l

# opt = `exact`; each new rewrite alone as a candidate (a candidate whose text equals opt's is not timed twice)
PIPE="--pass hoist-load --pass redundant-load --pass redundant-reduce --candidate rh=recip-hoist --candidate dc=div-chain --candidate hl=hoist-load"
DIRS=".carry/recip/*/kernels /tmp/suite/beyond-suite"

pack() {
    for w in /tmp/work /tmp/work-scan; do
        [ -d "$w/logs" ] || continue
        mkdir -p "/tmp/res/logs/$(basename $w)"
        for f in "$w"/logs/*.log "$w"/*.log; do
            [ -f "$f" ] && tail -n 100 "$f" > "/tmp/res/logs/$(basename $w)/$(basename $f)"
        done
    done
    tar czf "$OUT/results.tar.gz" -C /tmp/res --exclude='override' . 2>/dev/null
    cp /tmp/res/log.txt "$OUT/log.txt"
    ls -la "$OUT"
}

if [ "$MODE" = main ]; then
    # 1. the 8 rewritten modules of the 7 regenerated models (bench/results/h100-tune/kernels) and
    #    the corpus's coat_lite_mini view_4: tune + dump + rewrite on this GPU, no timing; the dumped
    #    TTIR come back for bench.beyond_paper (which new rewrites fire there)
    timeout 150 python3 -m bench.beyond_tune bench/results/h100-tune/kernels/*/kernels $PIPE \
        --candidate rlp=redundant-load-paper,redundant-reduce --workers 14 --time-budget 1 \
        --out /tmp/res/scan-cand --work /tmp/work-scan
    echo "[$(el)s] scan rc=$?"
    (cd /tmp/work-scan && find dump -name '*.ttir' | tar czf "$OUT/cand_ttir.tar.gz" -T -)
fi
if [ "$MODE" = main ] || [ "$MODE" = replicate ]; then
    LEFT=$(( 575 - $(el) ))
    timeout $LEFT python3 -m bench.beyond_tune $DIRS $PIPE --rounds 30 --confirm-rounds 20 --workers 14 \
        --time-budget $(( LEFT - 170 )) --out /tmp/res/tune --work /tmp/work
    echo "[$(el)s] tune rc=$?"
    python3 -m bench.beyond_ulps /tmp/work --json /tmp/res/tune/ulps.json --md /tmp/res/tune/ulps.md | tail -n 60
    echo "[$(el)s] ulps rc=$?"
    pack
    exit 0
fi
echo "unknown mode $MODE"; exit 2
