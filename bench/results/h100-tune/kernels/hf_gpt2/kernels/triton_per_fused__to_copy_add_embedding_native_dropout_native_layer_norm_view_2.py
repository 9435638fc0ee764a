
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1024, 'r0_': 1024},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*i64', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'out_ptr1': '*i1', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'out_ptr4': '*fp16', 'load_seed_offset': 'i32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]], (12,): [['tt.divisibility', 16]], (13,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__to_copy_add_embedding_native_dropout_native_layer_norm_view_2', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 5, 'num_store': 5, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 24576, 'r0_': 19666944}, 'kernel_num_gb': 0.009070648, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__to_copy_add_embedding_native_dropout_native_layer_norm_view_2(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, out_ptr1, out_ptr2, out_ptr3, out_ptr4, load_seed_offset, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1024
    r0_numel = 768
    R0_BLOCK: tl.constexpr = 1024
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    x2 = (xindex % 128)
    tmp5 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp13 = tl.load(in_ptr3 + (r0_1 + 768*x2), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp39 = tl.load(in_ptr3 + (r0_1 + 768*((x0 % 128))), r0_mask & xmask, other=0.0)
    tmp45 = tl.load(in_ptr4 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
    tmp47 = tl.load(in_ptr5 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
    tmp0 = tl.load(in_ptr0 + load_seed_offset)
    tmp1 = r0_1 + 768*x0
    tmp2 = tl.rand(tmp0, (tmp1).to(tl.uint32))
    tmp3 = tl.full([1, 1], 0.1, tl.float32)
    tmp4 = tmp2 > tmp3
    tmp6 = tl.full([1, 1], 50257, tl.int32)
    tmp7 = tmp5 + tmp6
    tmp8 = tmp5 < 0
    tmp9 = tl.where(tmp8, tmp7, tmp5)
    tl.device_assert(((0 <= tmp9) & (tmp9 < 50257)) | ~(xmask), "index out of bounds: 0 <= tmp9 < 50257")
    tmp11 = tl.load(in_ptr2 + (r0_1 + 768*tmp9), r0_mask & xmask, other=0.0)
    tmp12 = tmp4.to(tl.float32)
    tmp14 = tmp11 + tmp13
    tmp15 = tmp12 * tmp14
    tmp16 = tl.full([1, 1], 1.1111111111111112, tl.float32)
    tmp17 = tmp15 * tmp16
    tmp18 = tl.broadcast_to(tmp17, [XBLOCK, R0_BLOCK])
    tmp20 = tl.where(r0_mask & xmask, tmp18, 0)
    tmp21 = tl.broadcast_to(tmp18, [XBLOCK, R0_BLOCK])
    tmp23 = tl.where(r0_mask & xmask, tmp21, 0)
    tmp24 = tl.sum(tmp23, 1)[:, None].to(tl.float32)
    tmp25 = tl.full([1, 1], 768, tl.int32)
    tmp26 = tmp25.to(tl.float32)
    tmp27 = (tmp24 / tmp26)
    tmp28 = tmp18 - tmp27
    tmp29 = tmp28 * tmp28
    tmp30 = tl.broadcast_to(tmp29, [XBLOCK, R0_BLOCK])
    tmp32 = tl.where(r0_mask & xmask, tmp30, 0)
    tmp33 = tl.sum(tmp32, 1)[:, None].to(tl.float32)
    tmp34 = tl.full([1, 1], 768.0, tl.float32)
    tmp35 = (tmp33 / tmp34)
    tmp36 = tl.full([1, 1], 1e-05, tl.float32)
    tmp37 = tmp35 + tmp36
    tmp38 = libdevice.rsqrt(tmp37)
    tmp40 = tmp11 + tmp39
    tmp41 = tmp12 * tmp40
    tmp42 = tmp41 * tmp16
    tmp43 = tmp42 - tmp27
    tmp44 = tmp43 * tmp38
    tmp46 = tmp44 * tmp45
    tmp48 = tmp46 + tmp47
    tmp49 = tmp48.to(tl.float32)
    tl.store(out_ptr1 + (r0_1 + 768*x0), tmp4, r0_mask & xmask)
    tl.store(out_ptr2 + (r0_1 + 768*x0), tmp11, r0_mask & xmask)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp38, xmask)
    tl.store(out_ptr4 + (r0_1 + 768*x0), tmp49, r0_mask & xmask)
    tl.store(out_ptr3 + (x0), tmp27, xmask)


def get_args():
    arg_0 = rand_strided((8, 128, 1), (128, 1, 1), device='cuda:0', dtype=torch.float32)
    arg_1 = rand_strided((7,), (1,), device='cuda:0', dtype=torch.int64)
    arg_2 = rand_strided((8, 128), (128, 1), device='cuda:0', dtype=torch.int64)
    arg_3 = rand_strided((50257, 768), (768, 1), device='cuda:0', dtype=torch.float32)
    arg_4 = rand_strided((1, 128, 768), (98304, 768, 1), device='cuda:0', dtype=torch.float32)
    arg_5 = rand_strided((768,), (1,), device='cuda:0', dtype=torch.float32)
    arg_6 = rand_strided((768,), (1,), device='cuda:0', dtype=torch.float32)
    arg_7 = rand_strided((8, 128, 768), (98304, 768, 1), device='cuda:0', dtype=torch.bool)
    arg_8 = rand_strided((8, 128, 768), (98304, 768, 1), device='cuda:0', dtype=torch.float32)
    arg_9 = rand_strided((8, 128, 1), (128, 1, 1), device='cuda:0', dtype=torch.float32)
    arg_10 = rand_strided((1024, 768), (768, 1), device='cuda:0', dtype=torch.float16)
    arg_11 = 0
    return arg_0, arg_1, arg_2, arg_3, arg_4, arg_5, arg_6, arg_7, arg_8, arg_9, arg_10, arg_11, 1024, 768,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__to_copy_add_embedding_native_dropout_native_layer_norm_view_2.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__to_copy_add_embedding_native_dropout_native_layer_norm_view_2.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 0.009070648
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
