#===- cxx_extract.py - a CUDA kernel's text out of a .cu file ---------------===#
"""For .cu files whose host side needs torch (vLLM's csrc), the driver does
not include the file: it includes the kernel's own text, taken here out of
the file (upstream or kvlint's fixed copy) - its `template <...>` head, its
signature and its body to the matching brace - wrapped in the namespaces
the spec names.  Pure Python, tested on CPU."""
import re


class ExtractError(Exception):
    pass


def _skip_comment_or_string(src, i):
    """Index after a comment or literal starting at i, or i if none starts there."""
    if src.startswith("//", i):
        j = src.find("\n", i)
        return len(src) if j < 0 else j
    if src.startswith("/*", i):
        j = src.find("*/", i + 2)
        return len(src) if j < 0 else j + 2
    if src[i] in "\"'":
        q, j = src[i], i + 1
        while j < len(src) and src[j] != q:
            j += 2 if src[j] == "\\" else 1
        return j + 1
    return i


def matching_brace(src, open_at):
    depth, i = 0, open_at
    while i < len(src):
        j = _skip_comment_or_string(src, i)
        if j != i:
            i = j
            continue
        c = src[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ExtractError("unbalanced braces")


def extract_function(src, name, occurrence=0):
    """Text of the `occurrence`-th definition of function `name` (with the
    template head above it) and the 1-based line where it starts."""
    pat = re.compile(r"\b%s\s*\(" % re.escape(name))
    found = 0
    for m in pat.finditer(src):
        # a definition: the ')' of the parameter list is followed by '{' (before any ';')
        depth, i = 0, m.end() - 1
        while i < len(src):
            if src[i] == "(":
                depth += 1
            elif src[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        rest = src[i + 1:]
        k = 0
        while k < len(rest) and rest[k] not in "{;":
            k += 1
        if k >= len(rest) or rest[k] != "{":
            continue
        if found != occurrence:
            found += 1
            continue
        body_open = i + 1 + k
        end = matching_brace(src, body_open)
        # back to the start of the declaration: after the last ';', '}' or '{'
        # before the name that is outside comments and literals (a template head
        # ends in '>', so it stays with the function)
        j, last = 0, -1
        while j < m.start():
            k2 = _skip_comment_or_string(src, j)
            if k2 != j:
                j = k2
                continue
            if src[j] in ";}{":
                last = j
            j += 1
        start = last + 1
        # leading comments belong to the previous item's tail: skip them
        while True:
            while start < m.start() and src[start] in " \t\r\n":
                start += 1
            k2 = _skip_comment_or_string(src, start)
            if k2 == start or src[start] in "\"'":
                break
            start = k2
        text = src[start:end + 1]
        line = src.count("\n", 0, start) + 1
        return text, line
    raise ExtractError("no definition of '%s'" % name)


def kernel_header(src, names, namespaces=(), path="<file>"):
    """A header holding the named functions, wrapped in the namespaces, with
    #line directives so compiler messages name the upstream lines."""
    parts = ["// extracted by tools/confirm/cxx_extract.py from %s\n#pragma once\n" % path]
    for ns in namespaces:
        parts.append("namespace %s {\n" % ns)
    for n in names:
        text, line = extract_function(src, n)
        parts.append('#line %d "%s"\n%s\n' % (line, path, text))
    for ns in reversed(namespaces):
        parts.append("}  // namespace %s\n" % ns)
    return "".join(parts)
