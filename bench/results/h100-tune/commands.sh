# The commands behind bench/results/h100-tune (issue 13).  Device runs: the `run` tool of this
# workplace on an nvidia-h100-x1 machine (NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, Triton
# 3.6.0), each `bash bench/device_run.sh MODE` with carry [".whl", ".carry"]:
#   .whl:  xdsl-0.74.0, immutabledict-4.3.1, ordered_set-4.1.0 wheels (pip download, see
#          /work/.library/device/README.md)
#   .carry/corpus/<model>/kernels:  the corpus's kernel modules (../shared/corpus/.../kernels)
#   .carry/snap/ttopt:  a copy of ttopt/ tested on the CPU just before (other edits in flight
#          could not reach the run)
#   .carry/cand/<model>/kernels:  the 8 modules found rewritten (kernels/ here)

# run 1 (failed: no files came back; a bare `wait` in the script also waited for the log's tee)
bash bench/device_run.sh regen          # older version of the script

# run 2: regenerate 7 models outside the corpus, then tune + dump + rewrite all 854 modules;
#        the timing budget was spent by then (scan-regen/, logs/run2-regen.log)
bash bench/device_run.sh regen
#   = for m in timm:vit_base_patch16_224:depth=2 timm:deit_small_patch16_224:depth=2 \
#              timm:swin_tiny_patch4_window7_224 timm:mobilevit_s hf:gpt2 hf:distilbert hf:t5; do
#         python3 -m bench.regen_kernels /tmp/regen --model $m &      # in parallel
#     done; wait
#     python3 -m bench.tune /tmp/regen/*/kernels --pass redundant-load --pass redundant-reduce \
#         --pass div-chain --candidate evl=redundant-load-evl,redundant-reduce,div-chain \
#         --rounds 30 --confirm-rounds 20 --workers 14 --time-budget 222 --out /tmp/res/tune-regen

# run 3: the final tune (final/), then the whole corpus tuned + dumped + rewritten on the GPU
#        (scan-corpus/; timing skipped with --time-budget 1)
bash bench/device_run.sh final
#   = python3 -m bench.tune .carry/cand/*/kernels --paper-suite --hint-suite \
#         --pass redundant-load --pass redundant-reduce --pass div-chain \
#         --candidate evl=redundant-load-evl,redundant-reduce,div-chain \
#         --rounds 30 --confirm-rounds 20 --workers 14 --out /tmp/res/tune
#     python3 -m bench.tune .carry/corpus/{BERT_pytorch.train32,coat_lite_mini.train,hf_Bert.train}/kernels \
#         --pass redundant-load --pass redundant-reduce --pass div-chain \
#         --candidate evl=redundant-load-evl,redundant-reduce,div-chain --workers 15 --time-budget 1 \
#         --out /tmp/res/corpus-scan

# run 4: run 3's tune again on a fresh machine (replicate/)
bash bench/device_run.sh replicate

# On the CPU (this repository's .venv, no GPU):
python -m bench.tune_report bench/results/h100-tune/final --rebuild \
    --title "bench.tune on NVIDIA H100 80GB HBM3, run 3 (final): redundant-load + redundant-reduce + div-chain, candidate evl"
python -m bench.tune_report bench/results/h100-tune/replicate --rebuild \
    --title "bench.tune on NVIDIA H100 80GB HBM3, run 4 (replicate, fresh machine)"
python -m bench.tune_report bench/results/h100-tune/final --compare bench/results/h100-tune/replicate \
    > bench/results/h100-tune/compare.md
python -m bench.div_sass --out bench/results/h100-tune/div_sass.md
python -m bench.rl_regs --corpus --suites --json bench/results/h100-tune/rl_regs.json   # -> rl_regs.md
python -m bench.tune --dump-dir ../shared/corpus/inductor-triton3.6-h200/coat_lite_mini.train/triton \
    --pass redundant-load --pass redundant-reduce --pass div-chain --out /tmp/scan   # CPU scan of one model
