# Writes output-utf8.test's input: a latin-1 file name, and a kernel whose
# flagged expression holds latin-1 bytes, an escape character and a UTF-8
# character that straddles byte 77 of the quoted text.
import os, sys
src = (b"__global__ void k(float *cache, const int *slots, int stride) {\n"
       b"  int page = slots[blockIdx.x];\n"
       b"  cache[page /* \xe9" + b"x" * 67 + "\u00e9".encode() + b" tail \x1b[31m */ * stride"
       b" + threadIdx.x] = 0.f;\n}\n")
with open(os.path.join(sys.argv[1].encode(), b"k\xe9.cu"), "wb") as f:
    f.write(src)
