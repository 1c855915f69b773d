//===- Report.cpp - text, JSON and SARIF reporters --------------------------===//
#include "kvlint/Report.h"
#include "kvlint/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
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

static void jsonFinding(const Finding &F, std::ostream &OS) {
  const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
  OS << "{\"code\":\"" << F.Code << "\",\"check\":\"" << F.Check << "\",\"file\":\""
     << jsonEscape(B.File) << "\",\"line\":" << B.Line << ",\"column\":" << B.Col
     << ",\"end_line\":" << (E.valid() ? E.Line : B.Line)
     << ",\"end_column\":" << (E.valid() ? E.Col : B.Col) << ",\"message\":\""
     << jsonEscape(F.Message) << "\",\"function\":\"" << jsonEscape(F.Function)
     << "\",\"fixes\":[";
  for (size_t I = 0; I < F.Fixes.size(); ++I) {
    const FixIt &X = F.Fixes[I];
    OS << (I ? "," : "") << "{";
    if (fixFile(F, X) != B.File) // a header's helper, its caller's local
      OS << "\"file\":\"" << jsonEscape(fixFile(F, X)) << "\",";
    OS << "\"offset\":" << X.Begin.Offset << ",\"length\":" << X.Length
       << ",\"line\":" << X.Begin.Line << ",\"column\":" << X.Begin.Col << ",\"text\":\""
       << jsonEscape(X.Text) << "\"}";
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
  OS << "{\"version\":1,\"findings\":[";
  for (size_t I = 0; I < Fs.size(); ++I) {
    OS << (I ? ",\n" : "\n");
    jsonFinding(Fs[I], OS);
  }
  OS << "],\n\"notes\":[";
  for (size_t I = 0; I < Notes.size(); ++I)
    OS << (I ? "," : "") << "\n{\"file\":\"" << jsonEscape(Notes[I].File) << "\",\"message\":\""
       << jsonEscape(Notes[I].Message) << "\",\"error\":" << (Notes[I].Error ? "true" : "false")
       << "}";
  OS << "],\n\"summary\":{\"files\":" << S.FilesAnalysed << ",\"failed\":" << S.FilesFailed
     << ",\"functions\":" << S.Functions << ",\"findings\":" << Fs.size()
     << ",\"sites\":" << Fs.size() + S.Folded << "}}\n";
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

std::vector<std::string>
fingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
             const std::function<std::string(const std::string &)> &FileKey) {
  auto Squeeze = [](const std::string &T) {
    std::string O;
    for (char C : T)
      if (!std::isspace((unsigned char)C))
        O += C;
    return O;
  };
  std::vector<std::string> Out;
  std::map<std::string, unsigned> Occurrence;
  for (const Finding &F : Fs) {
    const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
    std::string Text;
    const std::string *File = Src.get(B.File);
    if (File && E.valid() && (E.File.empty() || E.File == B.File) && E.Offset > B.Offset &&
        E.Offset - B.Offset <= 1024 && E.Offset <= File->size())
      Text = File->substr(B.Offset, E.Offset - B.Offset);
    else
      Text = Src.line(B.File, B.Line);
    std::string Key = F.Code + "|" + (FileKey ? FileKey(B.File) : B.File) + "|" + F.Function +
                      "|" + Squeeze(Text);
    Out.push_back(fnv(Key + "|" + std::to_string(Occurrence[Key]++)));
  }
  return Out;
}

void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS,
                 const std::vector<std::string> *Fingerprints) {
  std::vector<std::string> Own;
  if (!Fingerprints || Fingerprints->size() != Fs.size()) {
    Own = fingerprints(Fs, Src);
    Fingerprints = &Own;
  }
  OS << "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
        "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"kvlint\",\"informationUri\":"
        "\"https://github.com/kvlint/kvlint\",\"rules\":[";
  const auto &Reg = ruleRegistry();
  for (size_t I = 0; I < Reg.size(); ++I) {
    auto R = Reg[I].Make();
    OS << (I ? "," : "") << "{\"id\":\"" << R->code() << "\",\"name\":\"" << R->check()
       << "\",\"shortDescription\":{\"text\":\"" << jsonEscape(R->summary())
       << "\"},\"helpUri\":\"docs/rules/" << R->code() << ".md\"}";
  }
  OS << "]}},\"results\":[";
  for (size_t I = 0; I < Fs.size(); ++I) {
    const Finding &F = Fs[I];
    const SrcLoc &B = F.Range.Begin, &E = F.Range.End;
    const std::string &FP = (*Fingerprints)[I];
    OS << (I ? "," : "") << "\n{\"ruleId\":\"" << F.Code << "\",\"level\":\"warning\","
       << "\"message\":{\"text\":\"" << jsonEscape(F.Message) << "\"},\"locations\":[{"
       << "\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"" << jsonEscape(uri(B.File))
       << "\"},\"region\":{\"startLine\":" << B.Line << ",\"startColumn\":" << B.Col
       << ",\"endLine\":" << (E.valid() ? E.Line : B.Line)
       << ",\"endColumn\":" << (E.valid() ? E.Col : B.Col) << "}}}],"
       << "\"partialFingerprints\":{\"kvlintFingerprint/v2\":\"" << FP << "\"}";
    if (!F.Notes.empty()) {
      OS << ",\"relatedLocations\":[";
      for (size_t J = 0; J < F.Notes.size(); ++J) {
        const SrcLoc &NB = F.Notes[J].Range.Begin;
        OS << (J ? "," : "") << "{\"id\":" << J << ",\"message\":{\"text\":\""
           << jsonEscape(F.Notes[J].Message) << "\"},\"physicalLocation\":{\"artifactLocation\":"
           << "{\"uri\":\"" << jsonEscape(uri(NB.File.empty() ? B.File : NB.File))
           << "\"},\"region\":{\"startLine\":" << NB.Line << ",\"startColumn\":" << NB.Col
           << "}}}";
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
      OS << ",\"fixes\":[{\"description\":{\"text\":\"widen or guard as the rule says\"},"
            "\"artifactChanges\":[";
      for (size_t C = 0; C < Files.size(); ++C) {
        const std::string &File = Files[C];
        OS << (C ? "," : "") << "{\"artifactLocation\":{\"uri\":\"" << jsonEscape(uri(File))
           << "\"},\"replacements\":[";
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
  OS << "],\"invocations\":[{\"executionSuccessful\":true,\"toolExecutionNotifications\":[";
  for (size_t I = 0; I < Notes.size(); ++I)
    OS << (I ? "," : "") << "{\"level\":\"" << (Notes[I].Error ? "error" : "note")
       << "\",\"message\":{\"text\":\"" << jsonEscape(Notes[I].Message)
       << "\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\""
       << jsonEscape(uri(Notes[I].File)) << "\"}}}]}";
  OS << "]}]}]}\n";
}

} // namespace kvlint
