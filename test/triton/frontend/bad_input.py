# Hostile inputs never crash or hang kvlint: non-UTF-8 bytes, NUL bytes,
# deeply nested expressions, a file that ends in the middle of a kernel.
# RUN: %if kvlint %{ printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(p_ptr, t_ptr, S: tl.constexpr):\n    s = "\xff\xfe\xc3\x28"\n    page = tl.load(t_ptr)  # \xe9t\xe9\n    tl.store(p_ptr + page * S, 0)\n' > %t.latin1.py %}
# RUN: %if kvlint %{ not %kvlint %t.latin1.py | FileCheck %s --check-prefix=LATIN1 %}
# LATIN1: latin1.py:7:22: warning: {{.*}}'page * S'{{.*}}[kvlint-narrowed-index-overflow]
#
# RUN: %if kvlint %{ printf '@triton.jit\0def k(p):\n' > %t.nul.py %}
# RUN: %if kvlint %{ not %kvlint -v %t.nul.py 2>&1 | FileCheck %s --check-prefix=NUL %}
# NUL: binary
#
# RUN: %if kvlint %{ python3 -c "print('import triton\nimport triton.language as tl\n@triton.jit\ndef k(p_ptr, t_ptr, S: tl.constexpr):\n    page = tl.load(t_ptr)\n    x = ' + '(' * 20000 + 'page' + ')' * 20000 + '\n    y = page' + ' + page' * 50000 + '\n    z = ' + '-' * 20000 + 'page\n    tl.store(p_ptr + page * S + x + y + z, 0)')" > %t.deep.py %}
# RUN: %if kvlint %{ not %kvlint -v %t.deep.py 2>&1 | FileCheck %s --check-prefix=DEEP %}
# DEEP-DAG: deep.py:9:22: warning: {{.*}}[kvlint-narrowed-index-overflow]
# DEEP-DAG: note: {{.*}}nesting too deep in 'k'; analysed in part
#
# RUN: %if kvlint %{ printf 'import triton\n@triton.jit\ndef k(p_ptr, t_ptr, S: tl.constexpr):\n    page = tl.load(t_ptr)\n    tl.store(p_ptr + page * S' > %t.eof.py %}
# RUN: %if kvlint %{ %kvlint -v %t.eof.py 2>&1 | FileCheck %s --check-prefix=EOF %}
# EOF: note: {{.*}}syntax errors; analysed what could be parsed
