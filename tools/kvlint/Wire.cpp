//===- Wire.cpp - a file's result across a process boundary ---------------===//
#include "Wire.h"
#include "kvlint/Bytes.h"

#include <cstdint>
#include <cstring>

namespace kvlint {
namespace {

// A field added to one of these structs changes its size: encode the field
// below, then update the size here. (x86-64, libstdc++.)
static_assert(sizeof(SrcLoc) == 48, "SrcLoc changed: update Wire.cpp");
static_assert(sizeof(SrcRange) == 104, "SrcRange changed: update Wire.cpp");
static_assert(sizeof(FixIt) == 96, "FixIt changed: update Wire.cpp");
static_assert(sizeof(Note) == 136, "Note changed: update Wire.cpp");
static_assert(sizeof(Finding) == 320, "Finding changed: update Wire.cpp");
static_assert(sizeof(FileNote) == 72, "FileNote changed: update Wire.cpp");

class Writer : public ByteWriter {
public:
  void loc(const SrcLoc &L) {
    s(L.File);
    u32(L.Line), u32(L.Col), u32(L.Offset);
  }
  void range(const SrcRange &R) {
    loc(R.Begin), loc(R.End);
    b(R.InMacro);
  }
  void fix(const FixIt &F) {
    loc(F.Begin);
    u32(F.Length);
    s(F.Text);
    b(F.Safe);
  }
  void note(const Note &N) {
    range(N.Range);
    s(N.Message);
  }
  void finding(const Finding &F) {
    s(F.Code), s(F.Check);
    range(F.Range);
    s(F.Message);
    u32(uint32_t(F.Fixes.size()));
    for (const FixIt &X : F.Fixes)
      fix(X);
    u32(uint32_t(F.Notes.size()));
    for (const Note &N : F.Notes)
      note(N);
    s(F.Function), s(F.Group);
    b(F.Latent);
    b(F.NameOnly);
  }
  void fileNote(const FileNote &N) {
    s(N.File), s(N.Message);
    b(N.Error);
  }
};

class Reader : public ByteReader {
public:
  using ByteReader::ByteReader;
  void loc(SrcLoc &L) {
    L.File = s();
    L.Line = u32(), L.Col = u32(), L.Offset = u32();
  }
  void range(SrcRange &R) {
    loc(R.Begin), loc(R.End);
    R.InMacro = b();
  }
  void fix(FixIt &F) {
    loc(F.Begin);
    F.Length = u32();
    F.Text = s();
    F.Safe = b();
  }
  void note(Note &N) {
    range(N.Range);
    N.Message = s();
  }
  void finding(Finding &F) {
    F.Code = s(), F.Check = s();
    range(F.Range);
    F.Message = s();
    F.Fixes.resize(count(16));
    for (FixIt &X : F.Fixes)
      fix(X);
    F.Notes.resize(count(16));
    for (Note &N : F.Notes)
      note(N);
    F.Function = s(), F.Group = s();
    F.Latent = b();
    F.NameOnly = b();
  }
  void fileNote(FileNote &N) {
    N.File = s(), N.Message = s();
    N.Error = b();
  }
};

const uint32_t Magic = 0x4b564c31; // "KVL1"

} // namespace

std::string encodeResult(const FileResult &R) {
  Writer W;
  W.u32(Magic);
  W.u32(uint32_t(R.Findings.size()));
  for (const Finding &F : R.Findings)
    W.finding(F);
  for (const std::vector<FileNote> *Ns : {&R.Notes, &R.Loud}) {
    W.u32(uint32_t(Ns->size()));
    for (const FileNote &N : *Ns)
      W.fileNote(N);
  }
  W.s(R.DumpText);
  W.u32(uint32_t(R.Hashes.size()));
  for (const auto &[File, Hash] : R.Hashes)
    W.s(File), W.s(Hash);
  for (const std::vector<std::string> *Ps : {&R.Read, &R.Absent}) {
    W.u32(uint32_t(Ps->size()));
    for (const std::string &P : *Ps)
      W.s(P);
  }
  W.u32(R.Functions);
  W.u32(R.Unreached);
  W.b(R.Analysed), W.b(R.Skipped), W.b(R.Failed), W.b(R.Partial);
  W.u32(Magic);
  return W.Out;
}

bool decodeResult(const std::string &Bytes, FileResult &R) {
  R = FileResult();
  Reader In(Bytes);
  if (In.u32() != Magic)
    return false;
  R.Findings.resize(In.count(16));
  for (Finding &F : R.Findings)
    In.finding(F);
  for (std::vector<FileNote> *Ns : {&R.Notes, &R.Loud}) {
    Ns->resize(In.count(9));
    for (FileNote &N : *Ns)
      In.fileNote(N);
  }
  R.DumpText = In.s();
  uint32_t NH = In.count(8);
  for (uint32_t I = 0; I < NH && In.Ok; ++I) {
    std::string File = In.s();
    R.Hashes[File] = In.s();
  }
  for (std::vector<std::string> *Ps : {&R.Read, &R.Absent}) {
    Ps->resize(In.count(4));
    for (std::string &P : *Ps)
      P = In.s();
  }
  R.Functions = In.u32();
  R.Unreached = In.u32();
  R.Analysed = In.b(), R.Skipped = In.b(), R.Failed = In.b(), R.Partial = In.b();
  return In.u32() == Magic && In.Ok && In.atEnd();
}

} // namespace kvlint
