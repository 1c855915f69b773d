# KV001 facet: a persistent grid. A launcher that sizes its grid as
# min(multiprocessors x k, rows) (Liger's Ascend RMSNorm backward:
# grid_size = min(get_npu_core_count() * 2, n_rows)) launches at most a few
# programs per multiprocessor: the program id times a row stride addresses a
# per-program partial row (`_dW[pid]`), not a row of the input. The grid is
# below the least of its quantities: the multiprocessor count names no
# dimension, so its bound is the default of a grid (Envelope.Grid), far
# below the tokens of a step. Positives beside them: the rows the
# programs walk (`row * stride` over range(pid, n_rows, num_programs)), a
# grid of min(n_rows, a value the envelope does not bound small), and a grid
# of the rows alone.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


def get_npu_core_count(default=20):
    return default


@triton.jit
def rms_backward(dW, X, dW_row_stride, X_row_stride, n_rows, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(dW + pid * dW_row_stride + offs, 0.0)
    for row in range(pid, n_rows, tl.num_programs(0)):
        # CHECK: persistent-grid.py:[[@LINE+1]]:22: warning: 32-bit signed product 'row * X_row_stride'
        tl.store(X + row * X_row_stride + offs, 0.0)


def rms_norm_backward(X, n_rows, n_cols):
    num_cores = get_npu_core_count()
    grid_size = min(num_cores * 2, n_rows)
    _dW = torch.zeros((grid_size, n_cols), dtype=torch.float32, device=X.device)
    rms_backward[(grid_size,)](_dW, X, _dW.stride(0), X.stride(0), n_rows, BLOCK=128)


@triton.jit
def persistent_sms(out, stride_row, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(out + pid * stride_row + tl.arange(0, BLOCK), 0.0)


def launch_sms(out, num_tokens):
    NUM_SMS = torch.cuda.get_device_properties(out.device).multi_processor_count
    persistent_sms[(min(NUM_SMS, num_tokens),)](out, out.stride(0), BLOCK=128)


@triton.jit
def capped_by_tokens(out, stride_row, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # CHECK: persistent-grid.py:[[@LINE+1]]:20: warning: 32-bit signed product 'pid * stride_row'
    tl.store(out + pid * stride_row + tl.arange(0, BLOCK), 0.0)


def launch_capped(out, num_tokens, max_batch_tokens):
    grid = min(num_tokens, max_batch_tokens)
    capped_by_tokens[(grid,)](out, out.stride(0), BLOCK=128)


@triton.jit
def one_per_row(out, stride_row, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # CHECK: persistent-grid.py:[[@LINE+1]]:20: warning: 32-bit signed product 'pid * stride_row'
    tl.store(out + pid * stride_row + tl.arange(0, BLOCK), 0.0)


def launch_rows(out, num_tokens):
    one_per_row[(num_tokens,)](out, out.stride(0), BLOCK=128)
