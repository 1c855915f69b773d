# -*- Python -*-
# kvlint's lit suite. Static legs (kvlint, the clang-tidy plugin) run where
# kvlint is built; GPU legs run where a GPU is (the device machine). Each leg
# sits behind a feature, so one file serves both places:
#   %if kvlint %{ ... %}     kvlint built (CI, developers)
#   %if tidy %{ ... %}       clang-tidy-19 and libkvlint-tidy.so present
#   %if cuda-gpu %{ ... %}   nvcc and an NVIDIA GPU
#   %if triton-gpu %{ ... %} python3 with triton and torch seeing a GPU
import os
import shutil
import subprocess

import lit.formats

config.name = "kvlint"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".cuh", ".hip", ".cpp", ".c", ".py", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "unit", "CMakeLists.txt", "README.md"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(config.test_source_root)
build = os.path.abspath(lit_config.params.get("build_dir", os.path.join(root, "build")))
config.test_exec_root = os.path.join(build, "test-lit")

llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-19/bin")
def tool(name, *extra):
    for d in (llvm_bin,) + extra:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return shutil.which(name)

filecheck = tool("FileCheck", os.path.join(root, ".carry", "bin"))
if not filecheck:
    lit_config.fatal("FileCheck not found (install llvm-19-tools)")
config.substitutions.append(("FileCheck", filecheck))

config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(filecheck), config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "PYTHONPATH", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The scan's cache (docs/cli.md, "Cache") would put a .kvlint_cache folder
# beside every scanned Inputs directory of the source tree: off for the suite;
# the cache-*.test files turn it on (--cache-dir, or env -u) in %t copies.
config.environment["KVLINT_NO_CACHE"] = "1"
if hasattr(os, "geteuid") and os.geteuid() != 0:
    config.available_features.add("non-root")  # permissions bind (a read-only tree)
config.environment.pop("KVLINT_CACHE_DIR", None)

prelude = os.path.join(root, "checker", "prelude")
cuda_flags = ("-x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_90 "
              "-Wno-unknown-cuda-version -include " + os.path.join(prelude, "cuda.h"))
hip_flags = ("-x hip --cuda-device-only -nogpuinc -nogpulib --offload-arch=gfx90a "
             "-include " + os.path.join(prelude, "hip.h"))
config.substitutions.append(("%cuda-flags", cuda_flags))
config.substitutions.append(("%hip-flags", hip_flags))

# A codegen oracle that needs no GPU: clang's PTX shows a 32-bit product
# (mul.lo.s32) where the source multiplies in 32 bits.
clangxx = tool("clang++")
if clangxx:
    config.available_features.add("clang")
    config.substitutions.append(("%clang-ptx", "%s %s -O2 -S -o -" % (clangxx, cuda_flags)))
    # The AMD twin (test/isa): gfx942 assembly, no ROCm (the kernels take their indices from
    # the amdgcn builtins).
    config.substitutions.append(("%clang-gfx942", "%s -x hip --offload-arch=gfx942 -nogpuinc "
                                 "-nogpulib --cuda-device-only -O2 -std=c++17 -S -o -" % clangxx))

kvlint = os.path.join(build, "bin", "kvlint")
if os.path.exists(kvlint):
    config.available_features.add("kvlint")
    config.substitutions.append(("%kvlint", kvlint))

plugin = os.path.join(build, "lib", "libkvlint-tidy.so")
clang_tidy = tool("clang-tidy")
if os.path.exists(plugin) and clang_tidy and "llvm-19" in clang_tidy:
    config.available_features.add("tidy")
    config.substitutions.append(
        ("%tidy", "%s --load=%s -checks=-*,kvlint-* --quiet" % (clang_tidy, plugin)))

# GPU legs. A GPU is there when nvidia-smi lists one; nvcc compiles for it.
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False
gpu = has_gpu()
if nvcc and gpu:
    config.available_features.add("cuda-gpu")
    config.substitutions.append(("%nvcc", nvcc + " -O2 -arch=sm_90 -std=c++17"))
if gpu:
    try:
        r = subprocess.run(["python3", "-c", "import torch, triton; assert torch.cuda.is_available()"],
                           capture_output=True, timeout=120)
        if r.returncode == 0:
            config.available_features.add("triton-gpu")
            config.substitutions.append(("%python", "python3"))
    except Exception:
        pass

# SARIF validator (npm @microsoft/sarif-multitool; its Sarif.Multitool binary,
# called directly since the npm wrapper mangles "Sarif;Gh"): optional.
sarif_mt = os.environ.get("KVLINT_SARIF_MULTITOOL") or shutil.which("Sarif.Multitool")
if sarif_mt and os.path.exists(sarif_mt):
    config.available_features.add("sarif-multitool")
    config.substitutions.append(("%sarif-multitool", sarif_mt))
