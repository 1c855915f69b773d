#===- stubs.py - stand-ins for an engine's imports, so its launcher loads ---===#
"""Mode 'launcher' executes the upstream file as a module.  Its engine imports
(`from vllm.platforms import current_platform`) are answered from
sys.modules by the stand-ins a spec names in [launch.stubs]:

  "vllm.platforms" = "platform"          current_platform: CUDA, sm_90
  "vllm.triton_utils" = "triton_utils"   tl, triton, HAS_TRITON
  "pkg.mod" = "jit:path/in/tree.py"      that file's @triton.jit functions only
  "pkg.mod" = "file:path/in/tree.py"     that file executed (after the others)
  "pkg.mod" = "attrs:NAME=1,OTHER=-1"    constants

as kernels/bench/peer_bench.py does for vLLM's store kernel.
"""
import ast
import importlib.util
import os
import sys
import types


class Platform:
    """vllm.platforms.current_platform on an sm_90 CUDA device."""

    def is_rocm(self):
        return False

    def is_xpu(self):
        return False

    def is_cuda(self):
        return True

    def is_cpu(self):
        return False

    def is_device_capability(self, cap):
        return cap == 90

    def is_device_capability_family(self, cap):
        return cap // 10 == 9

    def has_device_capability(self, cap):
        return 90 >= (cap if isinstance(cap, int) else cap[0] * 10 + cap[1])

    def get_device_capability(self):
        return (9, 0)

    def fp8_dtype(self):
        import torch
        return torch.float8_e4m3fn


def parse_attrs(text):
    """'A=1,B=-1,C=name' -> {'A': 1, 'B': -1, 'C': 'name'} (literals or strings)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise ValueError("attrs: '%s' is not NAME=VALUE" % part)
        k, v = part.split("=", 1)
        try:
            out[k.strip()] = ast.literal_eval(v.strip())
        except (ValueError, SyntaxError):
            out[k.strip()] = v.strip()
    return out


def _module(name, attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


def install(stubs, tree):
    """Put the stand-ins into sys.modules; returns their names (to remove later)."""
    import triton
    import triton.language as tl
    import kernel_source
    later = []
    for name, how in stubs.items():
        if how == "platform":
            sys.modules[name] = _module(name, {"current_platform": Platform()})
        elif how == "triton_utils":
            sys.modules[name] = _module(name, {"tl": tl, "triton": triton, "HAS_TRITON": True})
        elif how.startswith("jit:"):
            path = os.path.join(tree, how[4:])
            with open(path) as f:
                ns = kernel_source.compile_kernels(f.read(), path)
            sys.modules[name] = _module(name, {k: v for k, v in ns.items() if not k.startswith("__")})
        elif how.startswith("attrs:"):
            sys.modules[name] = _module(name, parse_attrs(how[6:]))
        elif how.startswith("file:"):
            later.append((name, os.path.join(tree, how[5:])))
        else:
            raise ValueError("stub '%s': unknown kind '%s'" % (name, how))
    for name, path in later:
        spec = importlib.util.spec_from_file_location(name, path)
        m = importlib.util.module_from_spec(spec)
        sys.modules[name] = m
        spec.loader.exec_module(m)
    return list(stubs)
