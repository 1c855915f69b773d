# KV001 profiles: a kernel launched only from an autograd.Function's
# forward/backward is judged in the training profile (1M tokens per batch);
# the same kernel launched from plain code is an inference kernel (262,144
# tokens per step). token * width (width below Envelope.Unknown = 8,192) wraps
# at 1M tokens, not at 262,144:
# a default finding in training, latent only in inference. The message
# names the profile.
# RUN: %if kvlint %{ not %kvlint --option=Profile=auto %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --option=Profile=auto --level latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
# The Profile option overrides the choice, here for the whole scan, and per
# directory in .kvlint.yaml.
# RUN: %if kvlint %{ %kvlint --option=Profile=inference %s | FileCheck %s --check-prefix=NONE --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ rm -rf %t && mkdir -p %t/serve && cp %s %t/serve/k.py && printf 'Profile: inference\n' > %t/serve/.kvlint.yaml && %kvlint %t/serve/k.py | FileCheck %s --check-prefix=NONE --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --option=Profile=training %s | FileCheck %s --check-prefixes=CHECK,TRAIN --implicit-check-not=warning: %}
# Each profile's own bound (docs/envelope.md): Envelope.Inference.Tokens moves
# the serving kernel's step and leaves training's 1M; Envelope.Training.Tokens
# the reverse.
# RUN: %if kvlint %{ not %kvlint --option=Profile=auto --option=Envelope.Inference.Tokens=524288 %s | FileCheck %s --check-prefixes=CHECK,INF --implicit-check-not=warning: %}
# RUN: %if kvlint %{ %kvlint --option=Profile=auto --option=Envelope.Training.Tokens=65536 %s | FileCheck %s --check-prefix=NONE --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --option=Envelope.Training.Tokens=0 %s 2>&1 | FileCheck %s --check-prefix=BAD %}
# BAD: error: --option=Envelope.Training.Tokens=0: 'Envelope.Training.Tokens' wants an integer from 1 to 2^62
# NONE-NOT: warning:
import torch
import triton
import triton.language as tl


@triton.jit
def _scale_train(x_ptr, y_ptr, width, BLOCK: tl.constexpr):
    token = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # CHECK: profile.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'token * width' is used as a memory offset and wraps past 2^31 in the training profile: 'token' <= 1,048,575
    x = tl.load(x_ptr + token * width + offs, mask=offs < width)
    tl.store(y_ptr + offs, x, mask=offs < width)


@triton.jit
def _scale_serve(x_ptr, y_ptr, width, BLOCK: tl.constexpr):
    token = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # LATENT: profile.py:[[@LINE+3]]:{{[0-9]+}}: warning: 32-bit signed product 'token * width' is used as a memory offset and wraps past 2^31 only beyond the inference envelope
    # INF: profile.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 'token * width' is used as a memory offset and wraps past 2^31 in the inference profile: 'token' <= 524,287
    # TRAIN: profile.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'token * width' is used as a memory offset and wraps past 2^31 in the training profile
    x = tl.load(x_ptr + token * width + offs, mask=offs < width)
    tl.store(y_ptr + offs, x, mask=offs < width)


class ScaleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        num_tokens = x.shape[0]
        _scale_train[(num_tokens,)](x, y, x.shape[1], BLOCK=1024)
        return y

    @staticmethod
    def backward(ctx, dy):
        dx = torch.empty_like(dy)
        num_tokens = dy.shape[0]
        _scale_train[(num_tokens,)](dy, dx, dy.shape[1], BLOCK=1024)
        return dx


def scale(x):
    y = torch.empty_like(x)
    num_tokens = x.shape[0]
    _scale_serve[(num_tokens,)](x, y, x.shape[1], BLOCK=1024)
    return y
