//===- SummaryIO.cpp - a FileSummary as bytes, for the on-disk cache ------===//
#include "project/SummaryIO.h"
#include "kvlint/Bytes.h"

#include <cstdint>
#include <cstring>

namespace kvlint {
namespace project {
namespace {

// A field added to one of these structs changes its size: encode the field
// below, then update the size here. (x86-64, libstdc++.)
static_assert(sizeof(Definition::Return) == 64, "Definition::Return changed: update SummaryIO.cpp");
static_assert(sizeof(Definition) == 296, "Definition changed: update SummaryIO.cpp");
static_assert(sizeof(Import) == 112, "Import changed: update SummaryIO.cpp");
static_assert(sizeof(CallSite) == 128, "CallSite changed: update SummaryIO.cpp");
static_assert(sizeof(FileSummary) == 248, "FileSummary changed: update SummaryIO.cpp (ContentKey is not serialised)");

const uint32_t Magic = 0x4b565332; // "KVS2" (2: CallSite::ArgTensors)

class Writer : public ByteWriter {
public:
  void def(const Definition &D) {
    u32(D.Kind);
    s(D.Name), s(D.Owner);
    u32(D.Line), u32(D.EndLine);
    b(D.Kernel), b(D.Registered);
    strs(D.Bases), strs(D.Decorators), strs(D.Refs), strs(D.Strings);
    strs(D.Params), strs(D.Guards);
    u32(D.Ret.Kind), u32(D.Ret.Bits);
    b(D.Ret.Signed);
    i64(D.Ret.Value);
    u32(uint32_t(D.Ret.Param));
    s(D.Ret.ParamName);
  }
  void import(const Import &I) {
    s(I.Module);
    u32(I.Level);
    s(I.Name), s(I.Local);
    u32(uint32_t(I.Scope)), u32(I.Line);
  }
  void call(const CallSite &C) {
    u32(uint32_t(C.Scope));
    s(C.Callee);
    strs(C.Args);
    strs(C.ArgTensors);
    s(C.Grid);
    b(C.Launch);
    u32(C.Line);
  }
};

class Reader : public ByteReader {
public:
  using ByteReader::ByteReader;
  /// A small enum: out of range is a corrupt entry.
  template <typename E> E kind(uint32_t Max) {
    uint32_t V = u32();
    if (V > Max)
      Ok = false;
    return E(Ok ? V : 0);
  }
  void def(Definition &D) {
    D.Kind = kind<Definition::KindT>(Definition::Method);
    D.Name = s(), D.Owner = s();
    D.Line = u32(), D.EndLine = u32();
    D.Kernel = b(), D.Registered = b();
    strs(D.Bases), strs(D.Decorators), strs(D.Refs), strs(D.Strings);
    strs(D.Params), strs(D.Guards);
    D.Ret.Kind = kind<Definition::Return::KindT>(Definition::Return::ProgramId);
    D.Ret.Bits = u32();
    D.Ret.Signed = b();
    D.Ret.Value = i64();
    D.Ret.Param = int(u32());
    D.Ret.ParamName = s();
  }
  void import(Import &I) {
    I.Module = s();
    I.Level = u32();
    I.Name = s(), I.Local = s();
    I.Scope = int(u32()), I.Line = u32();
  }
  void call(CallSite &C) {
    C.Scope = int(u32());
    C.Callee = s();
    strs(C.Args);
    strs(C.ArgTensors);
    C.Grid = s();
    C.Launch = b();
    C.Line = u32();
  }
};

} // namespace

std::string encodeSummary(const FileSummary &S) {
  Writer W;
  W.u32(Magic);
  W.s(S.Path);
  W.u32(uint32_t(S.Defs.size()));
  for (const Definition &D : S.Defs)
    W.def(D);
  W.u32(uint32_t(S.Imports.size()));
  for (const Import &I : S.Imports)
    W.import(I);
  W.u32(uint32_t(S.Calls.size()));
  for (const CallSite &C : S.Calls)
    W.call(C);
  W.strs(S.ModuleRefs);
  W.strs(S.ModuleStrings);
  W.u32(uint32_t(S.Constants.size()));
  for (const auto &[N, V] : S.Constants)
    W.s(N), W.s(V);
  W.b(S.HasMain), W.b(S.HasAll);
  W.strs(S.All);
  W.b(S.Parsed);
  W.u32(Magic);
  return W.Out;
}

bool decodeSummary(const std::string &Bytes, FileSummary &S) {
  S = FileSummary();
  Reader R(Bytes);
  if (R.u32() != Magic)
    return false;
  S.Path = R.s();
  S.Defs.resize(R.count(40));
  for (Definition &D : S.Defs)
    R.def(D);
  S.Imports.resize(R.count(24));
  for (Import &I : S.Imports)
    R.import(I);
  S.Calls.resize(R.count(21));
  for (CallSite &C : S.Calls)
    R.call(C);
  R.strs(S.ModuleRefs);
  R.strs(S.ModuleStrings);
  S.Constants.resize(R.count(8));
  for (auto &[N, V] : S.Constants)
    N = R.s(), V = R.s();
  S.HasMain = R.b(), S.HasAll = R.b();
  R.strs(S.All);
  S.Parsed = R.b();
  if (R.u32() != Magic || !R.Ok || !R.atEnd())
    return false;
  // Indices into Defs must stay in range: the link step indexes with them.
  int N = int(S.Defs.size());
  for (const Import &I : S.Imports)
    if (I.Scope < -1 || I.Scope >= N)
      return false;
  for (const CallSite &C : S.Calls)
    if (C.Scope < -1 || C.Scope >= N)
      return false;
  return true;
}

} // namespace project
} // namespace kvlint
