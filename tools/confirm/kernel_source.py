#===- kernel_source.py - a Triton kernel and its jit helpers out of a file -===#
"""Mode 'kernel': the file is not imported (its package imports may need the
whole engine).  The module-level @triton.jit functions are taken out of its
AST, every decorator replaced by a plain @triton.jit (autotune and
heuristics configs reference module names; the spec passes those constexprs
itself), together with module-level constant assignments, and compiled in a
namespace holding triton, tl, torch and the spec's prelude.

Pure Python up to `compile_kernels`, which needs triton.
"""
import ast
import linecache
import textwrap


def _is_jit_decorator(d):
    src = ast.unparse(d)
    return src.split("(")[0].split(".")[-1] in ("jit", "autotune", "heuristics")


def _jit_nodes(tree):
    """Module-level jit FunctionDefs, and those under a module-level `if` (its
    first branch: `if TRITON3: @triton.jit def softplus...`) not defined above."""
    seen, out = set(), []

    def visit(body):
        for node in body:
            if isinstance(node, ast.FunctionDef) and any(_is_jit_decorator(d) for d in node.decorator_list):
                if node.name not in seen:
                    seen.add(node.name)
                    out.append(node)
            elif isinstance(node, ast.If):
                visit(node.body)

    visit(tree.body)
    return out


def jit_functions(src):
    """{name: (start line, end line)} of the file's jit functions."""
    return {n.name: (n.lineno, n.end_lineno) for n in _jit_nodes(ast.parse(src))}


def constants(src):
    """Module-level `NAME = <literal or arithmetic of literals>` lines, in order."""
    tree = ast.parse(src)
    lines = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            value = node.value
            if value is None:
                continue
            try:
                ast.literal_eval(value)
            except (ValueError, SyntaxError, TypeError):
                if not all(isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop))
                           for n in ast.walk(value)):
                    continue
            lines.append(ast.get_source_segment(src, node))
    return lines


def kernel_module_source(src, keep_lines=True):
    """Source text with every jit function (decorators -> @triton.jit) and the
    constants; with keep_lines, each function starts at its original line so a
    Triton error names the upstream line."""
    tree = ast.parse(src)
    src_lines = src.splitlines(True)
    out = ["import triton\n", "import triton.language as tl\n"]
    consts = constants(src)
    out += [c + "\n" for c in consts]
    done = sum(t.count("\n") for t in out)
    for node in sorted(_jit_nodes(tree), key=lambda n: n.lineno):
        if keep_lines:
            pad = node.lineno - 1 - 1 - done  # one line for the decorator
            if pad > 0:
                out.append("\n" * pad)
                done += pad
        text = textwrap.dedent("".join(src_lines[node.lineno - 1:node.end_lineno]))
        out.append("@triton.jit\n" + text)
        done += 1 + text.count("\n")
    return "".join(out)


def compile_kernels(src, filename, prelude=""):
    """Namespace with the file's jit functions compiled (needs triton)."""
    import torch
    import triton
    import triton.language as tl
    text = kernel_module_source(src)
    ns = {"triton": triton, "tl": tl, "torch": torch, "__name__": "confirm_kernels"}
    if prelude:  # triton.jit reads a function's source through linecache
        pname = filename + ":prelude"
        linecache.cache[pname] = (len(prelude), None, prelude.splitlines(True), pname)
        exec(compile(prelude, pname, "exec"), ns)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), ns)
    return ns
