//===- Bytes.h - length-checked bytes for kvlint's own encodings -*- C++ -*-===//
//
// The encodings kvlint writes and reads back (a worker's result across the
// process boundary, tools/kvlint/Wire.cpp; a file summary and the cache's
// packs, checker/project/SummaryIO.cpp and tools/kvlint/Cache.cpp) share one
// writer and one reader. Integers are host-endian (the bytes never leave the
// machine); a string is its 32-bit length and its bytes. The reader treats
// its input as untrusted: every read is bounded by what is left, a failed
// read clears Ok and yields zero values, and a count is bounded by the bytes
// its items need, so corrupt input can neither overrun nor allocate without
// bound.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_BYTES_H
#define KVLINT_BYTES_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kvlint {

inline void putU32(std::string &O, uint32_t V) { O.append(reinterpret_cast<const char *>(&V), 4); }
inline void putU64(std::string &O, uint64_t V) { O.append(reinterpret_cast<const char *>(&V), 8); }
inline void putStr(std::string &O, const std::string &S) {
  putU32(O, uint32_t(S.size()));
  O += S;
}

class ByteWriter {
public:
  std::string Out;
  void u32(uint32_t V) { putU32(Out, V); }
  void i64(int64_t V) { putU64(Out, uint64_t(V)); }
  void b(bool V) { Out.push_back(V ? 1 : 0); }
  void s(const std::string &V) { putStr(Out, V); }
  void strs(const std::vector<std::string> &V) {
    u32(uint32_t(V.size()));
    for (const std::string &X : V)
      s(X);
  }
};

class ByteReader {
public:
  explicit ByteReader(const std::string &In) : In(In) {}
  bool Ok = true;
  bool take(void *P, size_t N) {
    if (!Ok || N > In.size() - Pos)
      return Ok = false;
    std::memcpy(P, In.data() + Pos, N);
    Pos += N;
    return true;
  }
  uint32_t u32() {
    uint32_t V = 0;
    return take(&V, sizeof V) ? V : 0;
  }
  uint64_t u64() {
    uint64_t V = 0;
    return take(&V, sizeof V) ? V : 0;
  }
  int64_t i64() { return int64_t(u64()); }
  /// A flag: 0 or 1; any other byte is corrupt input.
  bool b() {
    uint8_t V = 0;
    take(&V, 1);
    if (V > 1)
      Ok = false;
    return V != 0;
  }
  std::string s() {
    uint32_t N = u32();
    if (!Ok || N > In.size() - Pos) {
      Ok = false;
      return "";
    }
    std::string V = In.substr(Pos, N);
    Pos += N;
    return V;
  }
  /// A count of items that each take at least Min bytes: bounded by what is
  /// left, so a corrupt count cannot allocate gigabytes.
  uint32_t count(size_t Min) {
    uint32_t N = u32();
    if (Ok && N > (In.size() - Pos) / Min)
      Ok = false;
    return Ok ? N : 0;
  }
  void strs(std::vector<std::string> &V) {
    V.resize(count(4));
    for (std::string &X : V)
      X = s();
  }
  bool atEnd() const { return Pos == In.size(); }

private:
  const std::string &In;
  size_t Pos = 0;
};

} // namespace kvlint

#endif
