#!/bin/bash
# One batched run on the lent GPU machine (see bench/results/h100-tune/README_SECTION.md).
#
#   bench/device_run.sh regen   # regenerate kernel modules of models outside the corpus, in
#                               # parallel, then tune over them; packs $OUT
#   bench/device_run.sh tune    # tune over the corpus + the regenerated models (carried in
#                               # .carry/regen) + the paper and hint suites; packs $OUT
#
# Needs: .whl (xdsl and its two pure-Python dependencies), .carry/corpus (the corpus's kernel
# modules), .carry/snap/ttopt (a tested snapshot of ttopt, so that edits made elsewhere while
# the run is in flight cannot break it), for `tune` also .carry/regen.
set -u
MODE=${1:?regen or tune}
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/res
exec > >(tee -a /tmp/res/log.txt) 2>&1
el() { echo $(( $(date +%s) - T0 )); }

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
if [ -d .carry/snap/ttopt ]; then rm -rf ttopt && cp -r .carry/snap/ttopt ttopt; fi
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
python3 -c "import torch, triton, timm, transformers, xdsl, ttopt; print('torch', torch.__version__, 'triton', triton.__version__, 'timm', timm.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0))"
CORPUS=".carry/corpus/BERT_pytorch.train32/kernels .carry/corpus/coat_lite_mini.train/kernels .carry/corpus/hf_Bert.train/kernels"
PASSES="--pass redundant-load --pass redundant-reduce --pass div-chain --candidate evl=redundant-load-evl,redundant-reduce,div-chain"

pack() {
    for w in /tmp/work*; do  # the last lines of every worker's and runner's log
        [ -d "$w" ] || continue
        mkdir -p "/tmp/res/logs/$(basename $w)"
        for f in "$w"/logs/*.log "$w"/*.log; do
            [ -f "$f" ] && tail -n 150 "$f" > "/tmp/res/logs/$(basename $w)/$(basename $f)"
        done
    done
    tar czf "$OUT/results.tar.gz" -C /tmp/res . 2>/dev/null
    cp /tmp/res/log.txt "$OUT/log.txt"
    ls -la "$OUT"
}

regen() {  # kernel modules of models outside the corpus, in parallel
    MODELS="timm:vit_base_patch16_224:depth=2 timm:deit_small_patch16_224:depth=2 timm:swin_tiny_patch4_window7_224 timm:mobilevit_s hf:gpt2 hf:distilbert hf:t5"
    mkdir -p /tmp/regen /tmp/res/regen-logs
    local pids=()
    for m in $MODELS; do
        ( TORCHINDUCTOR_COMPILE_THREADS=4 timeout 330 python3 -m bench.regen_kernels /tmp/regen --model "$m" \
            > "/tmp/res/regen-logs/${m//[:=]/_}.log" 2>&1; echo "[$(el)s] regen $m rc=$?" ) &
        pids+=($!)
    done
    wait "${pids[@]}"  # not a bare `wait`: it would wait for the tee of the log too
    echo "[$(el)s] regen done"; for d in /tmp/regen/*/kernels; do echo "$d $(ls $d | wc -l)"; done
    tar czf "$OUT/regen.tar.gz" -C /tmp regen
}

if [ "$MODE" = regen ]; then  # regenerate, then tune over the regenerated models
    regen
    LEFT=$(( 565 - $(el) ))
    timeout $LEFT python3 -m bench.tune /tmp/regen/*/kernels $PASSES --rounds 30 --confirm-rounds 20 \
        --workers 14 --time-budget $(( LEFT - 190 )) --out /tmp/res/tune-regen --work /tmp/work-regen
    echo "[$(el)s] tune-regen rc=$?"
    pack
    exit 0
fi

if [ "$MODE" = tune ]; then  # everything: corpus, regenerated models (carried), both suites
    mkdir -p /tmp/regen && tar xzf .carry/regen.tar.gz -C /tmp
    timeout 560 python3 -m bench.tune $CORPUS /tmp/regen/*/kernels --paper-suite --hint-suite $PASSES \
        --rounds 30 --confirm-rounds 20 --workers 14 --time-budget 400 --out /tmp/res/tune --work /tmp/work
    echo "[$(el)s] tune rc=$?"
    pack
    exit 0
fi
if [ "$MODE" = replicate ]; then  # `final`'s timing again, in a fresh machine: run-to-run agreement
    timeout 560 python3 -m bench.tune .carry/cand/*/kernels --paper-suite --hint-suite $PASSES \
        --rounds 30 --confirm-rounds 20 --workers 14 --out /tmp/res/tune --work /tmp/work
    echo "[$(el)s] tune rc=$?"
    pack
    exit 0
fi

if [ "$MODE" = final ]; then
    # 1. time every module that a full pass found rewritten (.carry/cand: the corpus's one, found
    #    on the CPU from every compiled config's TTIR, and the 7 of the 854 regenerated modules
    #    found by `regen`'s tune+dump+rewrite on the GPU), with both suites
    timeout 420 python3 -m bench.tune .carry/cand/*/kernels --paper-suite --hint-suite $PASSES \
        --rounds 30 --confirm-rounds 20 --workers 14 --out /tmp/res/tune --work /tmp/work
    echo "[$(el)s] tune rc=$?"
    pack
    # 2. with the time left: tune + dump + rewrite over the whole corpus on the GPU (which
    #    modules ttopt rewrites there), timing skipped by a spent time budget
    LEFT=$(( 575 - $(el) ))
    if [ $LEFT -gt 60 ]; then
        timeout $LEFT python3 -m bench.tune $CORPUS $PASSES --workers 15 --time-budget 1 \
            --out /tmp/res/corpus-scan --work /tmp/work-corpus
        echo "[$(el)s] corpus scan rc=$?"
        pack
    fi
    exit 0
fi
echo "unknown mode $MODE"; exit 2
