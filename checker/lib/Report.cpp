//===- Report.cpp - text, JSON and SARIF reporters --------------------------===//
#include "kvlint/Report.h"
#include "kvlint/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kvlint {

const std::string *SourceCache::get(const std::string &Path) {
  auto It = Files.find(Path);
  if (It != Files.end())
    return It->second.get();
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Files[Path].get(); // remembers the failure as null
  std::ostringstream SS;
  SS << In.rdbuf();
  auto &Slot = Files[Path];
  Slot = std::make_unique<std::string>(SS.str());
  return Slot.get();
}

std::string SourceCache::line(const std::string &Path, unsigned Line) {
  const std::string *T = get(Path);
  if (!T || Line == 0)
    return "";
  auto It = Starts.find(Path);
  if (It == Starts.end()) {
    std::vector<size_t> S = {0};
    for (size_t P = T->find('\n'); P != std::string::npos; P = T->find('\n', P + 1))
      S.push_back(P + 1);
    It = Starts.emplace(Path, std::move(S)).first;
  }
  if (Line > It->second.size() || It->second[Line - 1] > T->size())
    return "";
  size_t Pos = It->second[Line - 1];
  size_t End = T->find('\n', Pos);
  std::string S = T->substr(Pos, End == std::string::npos ? std::string::npos : End - Pos);
  if (!S.empty() && S.back() == '\r')
    S.pop_back();
  return S;
}

std::string jsonEscape(const std::string &In) {
  const std::string S = validUtf8(In);
  std::string O;
  O.reserve(S.size());
  for (unsigned char C : S) {
    switch (C) {
    case '"': O += "\\\""; break;
    case '\\': O += "\\\\"; break;
    case '\n': O += "\\n"; break;
    case '\r': O += "\\r"; break;
    case '\t': O += "\\t"; break;
    default:
      if (C < 0x20 || C == 0x7F) {
        char B[8];
        snprintf(B, sizeof B, "\\u%04x", C);
        O += B;
      } else {
        O += char(C);
      }
    }
  }
  return O;
}

std::string textEscape(const std::string &In) {
  const std::string S = validUtf8(In);
  std::string O;
  O.reserve(S.size());
  for (unsigned char C : S) {
    if ((C < 0x20 && C != '\t') || C == 0x7F) {
      char B[8];
      snprintf(B, sizeof B, "\\x%02x", C);
      O += B;
    } else {
      O += char(C);
    }
  }
  return O;
}

// Blanks under the first Col - 1 bytes of a line as textEscape shows them: a
// tab stays a tab, each other character (not byte) is one column.
static std::string caretPad(const std::string &Line, unsigned Col) {
  std::string Shown = textEscape(Line.substr(0, Col ? std::min<size_t>(Col - 1, Line.size()) : 0));
  std::string Pad;
  for (unsigned char C : Shown)
    if (C == '\t')
      Pad += '\t';
    else if ((C & 0xC0) != 0x80) // not a continuation byte
      Pad += ' ';
  return Pad;
}

unsigned applyFixes(std::string &Text, const std::vector<const FixIt *> &Fixes) {
  std::vector<const FixIt *> Sorted = Fixes;
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const FixIt *A, const FixIt *B) {
    return A->Begin.Offset < B->Begin.Offset;
  });
  // Drop overlaps: an edit that starts inside the replaced text of an
  // earlier one. Insertions at the same point are kept in order.
  std::vector<const FixIt *> Kept;
  size_t Reach = 0;
  for (const FixIt *F : Sorted) {
    if (F->Begin.Offset + F->Length > Text.size())
      continue;
    if (!Kept.empty() && F->Begin.Offset < Reach)
      continue;
    Kept.push_back(F);
    Reach = std::max<size_t>(Reach, F->Begin.Offset + F->Length);
  }
  for (auto It = Kept.rbegin(); It != Kept.rend(); ++It)
    Text.replace((*It)->Begin.Offset, (*It)->Length, (*It)->Text);
  return unsigned(Kept.size());
}

// The source line with the finding's own fixes applied, for the text output.
static std::string fixedLine(const Finding &F, SourceCache &Src) {
  const std::string *T = Src.get(F.Range.Begin.File);
  if (!T || F.Fixes.empty())
    return "";
  unsigned Line = F.Range.Begin.Line;
  size_t Start = F.Range.Begin.Offset >= F.Range.Begin.Col - 1
                     ? F.Range.Begin.Offset - (F.Range.Begin.Col - 1)
                     : 0;
  size_t End = T->find('\n', Start);
  if (End == std::string::npos)
    End = T->size();
  std::vector<FixIt> Local;
  for (const FixIt &X : F.Fixes) {
    if (fixFile(F, X) != F.Range.Begin.File || X.Begin.Line != Line || X.Begin.Offset < Start ||
        X.Begin.Offset + X.Length > End)
      continue; // a fix on another line or in another file: not shown inline
    FixIt Y = X;
    Y.Begin.Offset -= unsigned(Start);
    Local.push_back(Y);
  }
  if (Local.empty())
    return "";
  std::string S = T->substr(Start, End - Start);
  std::vector<const FixIt *> Ptrs;
  for (const FixIt &X : Local)
    Ptrs.push_back(&X);
  applyFixes(S, Ptrs);
  return S;
}

void renderText(const std::vector<Finding> &Fs, SourceCache &Src, std::ostream &OS) {
  for (const Finding &F : Fs) {
    const SrcLoc &B = F.Range.Begin;
    OS << textEscape(B.File) << ":" << B.Line << ":" << B.Col
       << ": warning: " << textEscape(F.Message) << " [" << F.Check << "]\n";
    std::string L = Src.line(B.File, B.Line);
    if (!L.empty()) {
      char Num[16];
      snprintf(Num, sizeof Num, "%5u", B.Line);
      OS << Num << " | " << textEscape(L) << "\n";
      std::string Caret = caretPad(L, B.Col);
      Caret += '^';
      const SrcLoc &E = F.Range.End;
      if (E.Line == B.Line && E.Col > B.Col + 1)
        Caret += std::string(E.Col - B.Col - 1, '~');
      OS << "      | " << Caret << "\n";
      std::string Fixed = fixedLine(F, Src);
      if (!Fixed.empty())
        OS << "      | fix-it: "
           << textEscape(Fixed.substr(std::min(Fixed.find_first_not_of(" \t"), Fixed.size())))
           << "\n";
    }
    for (const Note &N : F.Notes)
      OS << textEscape(N.Range.Begin.File) << ":" << N.Range.Begin.Line << ":"
         << N.Range.Begin.Col << ": note: " << textEscape(N.Message) << "\n";
  }
}

const char *fixSafety(const Finding &F) {
  if (F.Fixes.empty())
    return "none";
  for (const FixIt &X : F.Fixes)
    if (!X.Safe)
      return "unsafe";
  return "safe";
}

static void jsonFinding(const Finding &F, std::ostream &OS, const std::string *FP = nullptr) {
  const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
  OS << "{\"code\":\"" << F.Code << "\",\"check\":\"" << F.Check << "\",\"file\":\""
     << jsonEscape(B.File) << "\",\"line\":" << B.Line << ",\"column\":" << B.Col
     << ",\"end_line\":" << (E.valid() ? E.Line : B.Line)
     << ",\"end_column\":" << (E.valid() ? E.Col : B.Col) << ",\"message\":\""
     << jsonEscape(F.Message) << "\",\"function\":\"" << jsonEscape(F.Function) << "\"";
  if (FP)
    OS << ",\"fingerprint\":\"" << *FP << "\",\"level\":\"warning\",\"fix_safety\":\""
       << fixSafety(F) << "\",\"latent\":" << (F.Latent ? "true" : "false")
       << ",\"on_names\":" << (F.NameOnly ? "true" : "false");
  OS << ",\"fixes\":[";
  for (size_t I = 0; I < F.Fixes.size(); ++I) {
    const FixIt &X = F.Fixes[I];
    OS << (I ? "," : "") << "{";
    if (fixFile(F, X) != B.File) // a header's helper, its caller's local
      OS << "\"file\":\"" << jsonEscape(fixFile(F, X)) << "\",";
    OS << "\"offset\":" << X.Begin.Offset << ",\"length\":" << X.Length
       << ",\"line\":" << X.Begin.Line << ",\"column\":" << X.Begin.Col << ",\"text\":\""
       << jsonEscape(X.Text) << "\"";
    if (FP)
      OS << ",\"safe\":" << (X.Safe ? "true" : "false");
    OS << "}";
  }
  OS << "],\"notes\":[";
  for (size_t I = 0; I < F.Notes.size(); ++I) {
    const Note &N = F.Notes[I];
    OS << (I ? "," : "") << "{\"file\":\"" << jsonEscape(N.Range.Begin.File)
       << "\",\"line\":" << N.Range.Begin.Line << ",\"column\":" << N.Range.Begin.Col
       << ",\"message\":\"" << jsonEscape(N.Message) << "\"}";
  }
  OS << "]}";
}

void renderJson(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                const RunSummary &S, std::ostream &OS) {
  renderJson(Fs, Notes, S, OS, JsonExtras());
}

void renderJson(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                const RunSummary &S, std::ostream &OS, const JsonExtras &X) {
  const std::vector<std::string> *FPs =
      X.Fingerprints && X.Fingerprints->size() == Fs.size() ? X.Fingerprints : nullptr;
  OS << "{\"version\":1,\"findings\":[";
  for (size_t I = 0; I < Fs.size(); ++I) {
    OS << (I ? ",\n" : "\n");
    jsonFinding(Fs[I], OS, FPs ? &(*FPs)[I] : nullptr);
  }
  OS << "],\n\"notes\":[";
  for (size_t I = 0; I < Notes.size(); ++I)
    OS << (I ? "," : "") << "\n{\"file\":\"" << jsonEscape(Notes[I].File) << "\",\"message\":\""
       << jsonEscape(Notes[I].Message) << "\",\"error\":" << (Notes[I].Error ? "true" : "false")
       << "}";
  OS << "],\n\"summary\":{\"files\":" << S.FilesAnalysed << ",\"failed\":" << S.FilesFailed
     << ",\"functions\":" << S.Functions << ",\"findings\":" << Fs.size()
     << ",\"sites\":" << Fs.size() + S.Folded << ",\"on_names\":"
     << std::count_if(Fs.begin(), Fs.end(), [](const Finding &F) { return F.NameOnly; });
  if (FPs)
    OS << ",\"baselined\":" << X.Baselined;
  OS << "}}\n";
}

std::string githubEscape(const std::string &S, bool Property) {
  std::string O;
  for (char C : S) {
    switch (C) {
    case '%': O += "%25"; break;
    case '\r': O += "%0D"; break;
    case '\n': O += "%0A"; break;
    case ':': O += Property ? "%3A" : ":"; break;
    case ',': O += Property ? "%2C" : ","; break;
    default: O += C;
    }
  }
  return O;
}

void renderGithub(const std::vector<Finding> &Fs, const std::string &Root, std::ostream &OS) {
  for (const Finding &F : Fs) {
    const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
    OS << "::warning file=" << githubEscape(rootRelative(Root, B.File), true)
       << ",line=" << B.Line << ",col=" << B.Col;
    if (E.valid() && (E.Line > B.Line || (E.Line == B.Line && E.Col >= B.Col)))
      OS << ",endLine=" << E.Line << ",endColumn=" << E.Col;
    OS << ",title=" << githubEscape(F.Code + " " + F.Check, true)
       << "::" << githubEscape(F.Message, false) << "\n";
  }
}

void renderStatistics(const std::vector<Finding> &Fs, std::ostream &OS) {
  struct Count {
    std::string Check;
    unsigned Findings = 0, Sites = 0, Safe = 0, Unsafe = 0;
  };
  std::map<std::string, Count> ByCode;
  for (const Finding &F : Fs) {
    Count &C = ByCode[F.Code];
    C.Check = F.Check;
    ++C.Findings;
    C.Sites += 1;
    for (const Note &N : F.Notes)
      C.Sites += N.Message.rfind("and here: ", 0) == 0;
    std::string S = fixSafety(F);
    C.Safe += S == "safe";
    C.Unsafe += S == "unsafe";
  }
  for (const auto &[Code, C] : ByCode) {
    char Num[16];
    snprintf(Num, sizeof Num, "%5u", C.Findings);
    OS << Num << "  " << Code << "  " << C.Check << "  (" << C.Sites << " site(s); " << C.Safe
       << " safe fix(es), " << C.Unsafe << " unsafe)\n";
  }
}

static std::string fnv(const std::string &S) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : S) {
    H ^= C;
    H *= 1099511628211ull;
  }
  char B[20];
  snprintf(B, sizeof B, "%016llx", (unsigned long long)H);
  return B;
}

static std::string uri(const std::string &Path) {
  std::string O;
  for (unsigned char C : Path) {
    if (std::isalnum(C) || std::string("/-._~").find(char(C)) != std::string::npos)
      O += char(C);
    else {
      char B[4];
      snprintf(B, sizeof B, "%%%02X", C);
      O += B;
    }
  }
  return O;
}

std::string sarifUri(const std::string &Path) {
  if (!Path.empty() && Path[0] == '/')
    return "file://" + uri(Path);
  return uri(Path);
}

std::string rootRelative(const std::string &Root, const std::string &File) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::path F = fs::absolute(File, EC).lexically_normal();
  fs::path FR = fs::weakly_canonical(F, EC);
  if (!EC)
    F = FR;
  if (Root.empty())
    return F.generic_string();
  fs::path R = fs::absolute(Root, EC).lexically_normal();
  fs::path RR = fs::weakly_canonical(R, EC);
  if (!EC)
    R = RR;
  fs::path Rel = F.lexically_relative(R);
  std::string S = Rel.generic_string();
  if (Rel.empty() || S == ".." || S.rfind("../", 0) == 0)
    return F.generic_string();
  return S;
}

namespace {
std::string squeeze(const std::string &T) {
  std::string O;
  for (char C : T)
    if (!std::isspace((unsigned char)C))
      O += C;
  return O;
}

/// The fingerprint's key: code, file, function, expression text.
std::string fingerprintKey(const Finding &F, SourceCache &Src,
                           const std::function<std::string(const std::string &)> &FileKey) {
  const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
  std::string Text;
  const std::string *File = Src.get(B.File);
  if (File && E.valid() && (E.File.empty() || E.File == B.File) && E.Offset > B.Offset &&
      E.Offset - B.Offset <= 1024 && E.Offset <= File->size())
    Text = File->substr(B.Offset, E.Offset - B.Offset);
  else
    Text = Src.line(B.File, B.Line);
  return F.Code + "|" + (FileKey ? FileKey(B.File) : B.File) + "|" + F.Function + "|" +
         squeeze(Text);
}
} // namespace

std::vector<std::string>
fingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
             const std::function<std::string(const std::string &)> &FileKey) {
  std::vector<std::string> Out;
  for (const Finding &F : Fs)
    Out.push_back(fnv(fingerprintKey(F, Src, FileKey)));
  return Out;
}

std::vector<std::string>
legacyFingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
                   const std::function<std::string(const std::string &)> &FileKey) {
  std::vector<std::string> Out;
  std::map<std::string, unsigned> Occurrence;
  for (const Finding &F : Fs) {
    std::string Key = fingerprintKey(F, Src, FileKey);
    Out.push_back(fnv(Key + "|" + std::to_string(Occurrence[Key]++)));
  }
  return Out;
}

std::vector<std::string> siteHashes(const std::vector<Finding> &Fs, SourceCache &Src) {
  std::vector<std::string> Out;
  for (const Finding &F : Fs) {
    const std::string &File = F.Range.Begin.File;
    unsigned L = F.Range.Begin.Line;
    std::string Own = squeeze(Src.line(File, L)), Prev, Next;
    for (unsigned K = L; K > 1 && Prev.empty() && L - K < 50;)
      Prev = squeeze(Src.line(File, --K));
    const std::string *T = Src.get(File);
    unsigned Lines = T ? unsigned(std::count(T->begin(), T->end(), '\n')) + 1 : 0;
    for (unsigned K = L; K < Lines && Next.empty() && K - L < 50;)
      Next = squeeze(Src.line(File, ++K));
    Out.push_back(fnv(Own).substr(8) + fnv(Prev + "\n" + Own + "\n" + Next).substr(8));
  }
  return Out;
}

namespace {
/// The first paragraph of the doc's "What it does" section, as one line of
/// plain text; Section gets the whole section.
std::string docSummary(const std::string &Doc, std::string &Section) {
  size_t P = Doc.find("## What it does");
  if (P == std::string::npos)
    return "";
  P = Doc.find('\n', P);
  size_t End = P == std::string::npos ? P : Doc.find("\n## ", P);
  Section = P == std::string::npos ? "" : Doc.substr(P + 1, End == std::string::npos ? End : End - P - 1);
  size_t B = Section.find_first_not_of("\n");
  if (B == std::string::npos)
    return "";
  size_t E = Section.find("\n\n", B);
  std::string Para = Section.substr(B, E == std::string::npos ? E : E - B);
  std::string Out;
  for (char C : Para)
    Out += C == '\n' ? ' ' : C;
  Section = Section.substr(B);
  while (!Section.empty() && Section.back() == '\n')
    Section.pop_back();
  return Out;
}

void sarifLocation(const std::string &Path, const std::string &Root, std::ostream &OS) {
  std::string Rel = rootRelative(Root, Path);
  OS << "\"artifactLocation\":{\"uri\":\"" << jsonEscape(sarifUri(Rel)) << "\"";
  if (Rel.empty() || Rel[0] != '/')
    OS << ",\"uriBaseId\":\"SRCROOT\"";
  OS << "}";
}
} // namespace

void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS,
                 const std::vector<std::string> *Fingerprints) {
  SarifOptions O;
  O.Fingerprints = Fingerprints;
  O.NotesPerFile = 0;
  renderSarif(Fs, Notes, Src, OS, O);
}

void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS, const SarifOptions &Opt) {
  namespace fs = std::filesystem;
  std::error_code EC;
  std::string Root = Opt.SrcRoot.empty() ? fs::current_path(EC).string() : Opt.SrcRoot;
  {
    fs::path R = fs::weakly_canonical(fs::absolute(Root, EC).lexically_normal(), EC);
    if (!EC)
      Root = R.string();
  }
  std::vector<std::string> Own;
  const std::vector<std::string> *FPs = Opt.Fingerprints;
  if (!FPs || FPs->size() != Fs.size()) {
    Own = fingerprints(Fs, Src, [&](const std::string &F) { return rootRelative(Root, F); });
    FPs = &Own;
  }
  std::string RootUri = "file://" + uri(Root);
  if (RootUri.back() != '/')
    RootUri += '/';
  OS << "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
        "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"kvlint\",\"version\":\""
     << jsonEscape(Opt.Version) << "\",\"semanticVersion\":\""
     << jsonEscape(Opt.Version.substr(0, Opt.Version.find_first_of(" +"))) << "\","
     << "\"informationUri\":\"" << jsonEscape(Opt.InformationUri) << "\",\"rules\":[";
  const auto &Reg = ruleRegistry();
  std::map<std::string, size_t> RuleIndex;
  for (size_t I = 0; I < Reg.size(); ++I) {
    auto R = Reg[I].Make();
    RuleIndex[R->code()] = I;
    std::string Doc = Opt.RuleDoc ? Opt.RuleDoc(R->code()) : "";
    std::string Section;
    std::string Full = docSummary(Doc, Section);
    if (Full.empty())
      Full = R->summary();
    if (Section.empty())
      Section = Full;
    if (Doc.empty())
      Doc = Full;
    OS << (I ? "," : "") << "\n{\"id\":\"" << R->code() << "\",\"name\":\"" << R->check()
       << "\",\"shortDescription\":{\"text\":\"" << jsonEscape(R->summary())
       << "\"},\"fullDescription\":{\"text\":\"" << jsonEscape(Full)
       << "\"},\"help\":{\"text\":\"" << jsonEscape(Section) << "\",\"markdown\":\""
       << jsonEscape(Doc) << "\"},\"helpUri\":\"" << jsonEscape(Opt.HelpBase + R->code() + ".md")
       << "\",\"defaultConfiguration\":{\"level\":\"warning\"},\"properties\":{\"tags\":["
          "\"correctness\",\"gpu\"],\"precision\":\"high\",\"problem.severity\":\"warning\"}}";
  }
  OS << "]}},\n\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"" << jsonEscape(RootUri)
     << "\"}},\n\"results\":[";
  std::map<std::string, unsigned> Occurrence;
  for (size_t I = 0; I < Fs.size(); ++I) {
    const Finding &F = Fs[I];
    const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
    std::string FP = (*FPs)[I] + ":" + std::to_string(++Occurrence[(*FPs)[I]]);
    unsigned EndLine = E.valid() ? E.Line : B.Line;
    unsigned EndCol = E.valid() ? E.Col : B.Col;
    if (EndLine < B.Line || (EndLine == B.Line && EndCol < B.Col))
      EndLine = B.Line, EndCol = B.Col;
    std::string Msg = F.Message;
    if (!Msg.empty() && Msg.back() != '.')
      Msg += '.';
    OS << (I ? "," : "") << "\n{\"ruleId\":\"" << F.Code << "\"";
    auto RI = RuleIndex.find(F.Code);
    if (RI != RuleIndex.end())
      OS << ",\"ruleIndex\":" << RI->second;
    OS << ",\"level\":\"warning\",\"message\":{\"text\":\"" << jsonEscape(Msg)
       << "\"},\"locations\":[{\"physicalLocation\":{";
    sarifLocation(B.File, Root, OS);
    OS << ",\"region\":{\"startLine\":" << B.Line << ",\"startColumn\":" << B.Col
       << ",\"endLine\":" << EndLine << ",\"endColumn\":" << EndCol << "}}";
    if (!F.Function.empty())
      OS << ",\"logicalLocations\":[{\"name\":\"" << jsonEscape(F.Function)
         << "\",\"kind\":\"function\"}]";
    OS << "}],\"partialFingerprints\":{\"kvlintFingerprint/v3\":\"" << FP << "\"}";
    if (!F.Notes.empty()) {
      OS << ",\"relatedLocations\":[";
      for (size_t J = 0; J < F.Notes.size(); ++J) {
        const SrcLoc &NB = F.Notes[J].Range.Begin;
        OS << (J ? "," : "") << "{\"id\":" << J << ",\"message\":{\"text\":\""
           << jsonEscape(F.Notes[J].Message) << "\"},\"physicalLocation\":{";
        sarifLocation(NB.File.empty() ? B.File : NB.File, Root, OS);
        OS << ",\"region\":{\"startLine\":" << std::max(1u, NB.Line)
           << ",\"startColumn\":" << std::max(1u, NB.Col) << "}}}";
      }
      OS << "]";
    }
    if (!F.Fixes.empty()) {
      // One artifact change per file the fix-its edit, the finding's own
      // first.
      std::vector<std::string> Files;
      for (const FixIt &X : F.Fixes)
        if (fixFile(F, X) == B.File) {
          Files.push_back(B.File);
          break;
        }
      for (const FixIt &X : F.Fixes)
        if (std::find(Files.begin(), Files.end(), fixFile(F, X)) == Files.end())
          Files.push_back(fixFile(F, X));
      bool Safe = true;
      for (const FixIt &X : F.Fixes)
        Safe &= X.Safe;
      OS << ",\"fixes\":[{\"description\":{\"text\":\""
         << (Safe ? "Widen the index to 64 bits (a safe fix)."
                  : "Widen or guard as the rule says (an unsafe fix: review it).")
         << "\"},\"artifactChanges\":[";
      for (size_t C = 0; C < Files.size(); ++C) {
        const std::string &File = Files[C];
        OS << (C ? "," : "") << "{";
        sarifLocation(File, Root, OS);
        OS << ",\"replacements\":[";
        bool FirstRep = true;
        for (const FixIt &X : F.Fixes) {
          if (fixFile(F, X) != File)
            continue;
          OS << (FirstRep ? "" : ",") << "{\"deletedRegion\":{\"charOffset\":" << X.Begin.Offset
             << ",\"charLength\":" << X.Length << "},\"insertedContent\":{\"text\":\""
             << jsonEscape(X.Text) << "\"}}";
          FirstRep = false;
        }
        OS << "]}";
      }
      OS << "]}]";
    }
    OS << "}";
  }
  // Notes, bounded: at most NotesPerFile per file, then one note that counts
  // the rest (-v lists them all).
  OS << "],\n\"invocations\":[{\"executionSuccessful\":true,\"toolExecutionNotifications\":[";
  std::map<std::string, unsigned> PerFile;
  unsigned Left = 0, Written = 0;
  for (const FileNote &N : Notes) {
    if (!N.Error && Opt.NotesPerFile && ++PerFile[N.File] > Opt.NotesPerFile) {
      ++Left;
      continue;
    }
    std::string Msg = N.Message;
    if (!Msg.empty() && Msg.back() != '.')
      Msg += '.';
    OS << (Written++ ? "," : "") << "\n{\"level\":\"" << (N.Error ? "error" : "note")
       << "\",\"message\":{\"text\":\"" << jsonEscape(Msg) << "\"},\"locations\":[{"
       << "\"physicalLocation\":{";
    sarifLocation(N.File, Root, OS);
    OS << "}}]}";
  }
  if (Left)
    OS << (Written ? "," : "") << "\n{\"level\":\"note\",\"message\":{\"text\":\"" << Left
       << " more note(s) not listed (at most " << Opt.NotesPerFile
       << " per file; kvlint -v lists them all).\"}}";
  OS << "]}]}]}\n";
}

} // namespace kvlint
