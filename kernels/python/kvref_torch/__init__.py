"""kvref_torch: torch.ops.kvref.* (slot_mapping, kv_store, record_store) for Python engines.

The extension is compiled on first use with torch.utils.cpp_extension (needs torch with CUDA
and nvcc); the build is cached in KVREF_TORCH_BUILD_DIR (default: torch's extension cache).

    import kvref_torch
    kvref_torch.load()                      # builds once, registers torch.ops.kvref.*
    slots = torch.ops.kvref.slot_mapping([block_table], [16], idx_mapping, query_start_loc,
                                         positions, num_tokens_padded)
    torch.ops.kvref.kv_store(key, value, key_cache, value_cache, slots[0], "NHD")
"""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _kernels_dir():
    # Source checkout: kernels/python/kvref_torch -> kernels/.
    # Installed: <prefix>/share/kvref/python/kvref_torch -> <prefix>/share/kvref (src/) and
    # <prefix>/include.
    cand = os.path.abspath(os.path.join(_HERE, "..", ".."))
    if os.path.isdir(os.path.join(cand, "src")) and os.path.isdir(os.path.join(cand, "include")):
        return cand, os.path.join(cand, "include")
    share = os.path.abspath(os.path.join(_HERE, "..", ".."))
    return share, os.path.abspath(os.path.join(share, "..", "..", "include"))


_loaded = False


def _gencode():
    """-gencode for the current GPU (KVREF_TORCH_CUDA_ARCH=90 overrides; sm_90 without a GPU)."""
    arch = os.environ.get("KVREF_TORCH_CUDA_ARCH")
    if not arch:
        import torch

        arch = "90"
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            arch = f"{major}{minor}"
    return f"-gencode=arch=compute_{arch},code=sm_{arch}"


def load(verbose=False):
    """Build (once) and load the extension; afterwards torch.ops.kvref.* exist."""
    global _loaded
    if _loaded:
        return
    import torch
    from torch.utils import cpp_extension

    root, include = _kernels_dir()
    sources = [
        os.path.join(_HERE, "csrc", "kvref_torch.cpp"),
        os.path.join(root, "src", "kvref_launch.cu"),
        os.path.join(root, "src", "validate.cpp"),
    ]
    build_dir = os.environ.get("KVREF_TORCH_BUILD_DIR")
    if build_dir:
        os.makedirs(build_dir, exist_ok=True)
    cpp_extension.load(
        name="kvref_torch_ops",
        sources=sources,
        extra_include_paths=[include, os.path.join(root, "src")],
        extra_cflags=["-O2", "-std=c++17"],
        extra_cuda_cflags=["-O3", "-std=c++17", _gencode()],
        build_directory=build_dir,
        is_python_module=False,
        verbose=verbose,
    )
    _loaded = True
    assert hasattr(torch.ops.kvref, "kv_store")
