//===- Utf8.h - UTF-8 boundaries and repair ---------------------*- C++ -*-===//
//
// Scanned files and their names are bytes: latin-1 comments, a name that is
// not UTF-8. What kvlint prints must still be valid UTF-8 (JSON and SARIF
// require it; GitHub rejects an upload that is not): cut text only at
// character boundaries, and replace bytes that are not UTF-8 by U+FFFD.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_UTF8_H
#define KVLINT_UTF8_H

#include <cstddef>
#include <string>

namespace kvlint {

/// The length (1-4) of the well-formed UTF-8 sequence at S[I] (RFC 3629: no
/// overlong forms, no surrogates, nothing past U+10FFFF), or 0.
inline size_t utf8Length(const std::string &S, size_t I) {
  auto At = [&](size_t K) { return I + K < S.size() ? (unsigned char)S[I + K] : 0u; };
  auto Cont = [&](size_t K, unsigned Lo = 0x80, unsigned Hi = 0xBF) {
    return At(K) >= Lo && At(K) <= Hi;
  };
  unsigned C = At(0);
  if (I >= S.size())
    return 0;
  if (C < 0x80)
    return 1;
  if (C >= 0xC2 && C <= 0xDF)
    return Cont(1) ? 2 : 0;
  if (C >= 0xE0 && C <= 0xEF) {
    unsigned Lo = C == 0xE0 ? 0xA0 : 0x80, Hi = C == 0xED ? 0x9F : 0xBF;
    return Cont(1, Lo, Hi) && Cont(2) ? 3 : 0;
  }
  if (C >= 0xF0 && C <= 0xF4) {
    unsigned Lo = C == 0xF0 ? 0x90 : 0x80, Hi = C == 0xF4 ? 0x8F : 0xBF;
    return Cont(1, Lo, Hi) && Cont(2) && Cont(3) ? 4 : 0;
  }
  return 0;
}

/// S with every byte that does not start a well-formed sequence replaced by
/// U+FFFD.
inline std::string validUtf8(const std::string &S) {
  std::string O;
  O.reserve(S.size());
  for (size_t I = 0; I < S.size();) {
    size_t N = utf8Length(S, I);
    if (N) {
      O.append(S, I, N);
      I += N;
    } else {
      O += "\xEF\xBF\xBD";
      ++I;
    }
  }
  return O;
}

/// The longest prefix of S of at most Max bytes that does not end inside a
/// well-formed multi-byte sequence.
inline std::string utf8Prefix(const std::string &S, size_t Max) {
  size_t I = 0;
  while (I < S.size()) {
    size_t N = utf8Length(S, I);
    N = N ? N : 1; // a stray byte is one unit (validUtf8 replaces it later)
    if (I + N > Max)
      break;
    I += N;
  }
  return S.substr(0, I);
}

} // namespace kvlint

#endif
