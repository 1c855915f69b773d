//===- KvlintTidyModule.cpp - kvlint's rules as clang-tidy checks -----------===//
//
// Each registered rule becomes a clang-tidy check of the same name. The check
// lowers the translation unit with the same Clang frontend the CLI uses and
// runs the same rule object: nothing here re-implements a rule.
//
//   clang-tidy-19 --load=build/lib/libkvlint-tidy.so -checks='-*,kvlint-*' f.cu -- ...
//
//===----------------------------------------------------------------------===//
#include "kvlint/ClangFrontend.h"
#include "kvlint/OptionCheck.h"
#include "kvlint/Rule.h"
#include "kvlint/Suppress.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <memory>

using namespace clang;
using namespace clang::tidy;

namespace kvlint {
namespace {

class RuleCheck : public ClangTidyCheck {
public:
  RuleCheck(StringRef Name, ClangTidyContext *Context, const RuleInfo &Info)
      : ClangTidyCheck(Name, Context), Impl(Info.Make()), TidyCtx(Context) {
    // Options are read and stored symmetrically under the rule's own names;
    // shared ones (Level, Envelope.*) may also be given globally.
    // A value the CLI would reject (a bad number, an unknown level, a
    // catastrophic pattern) is a configuration warning here, as clang-tidy's
    // own checks do, and the default stands: never a silent default.
    for (const OptionSpec &O : allOptions()) {
      std::string Key = std::string(Impl->check()) + "." + O.Name;
      std::string V = Options.getLocalOrGlobal(O.Name, O.Default).str();
      // The default is valid by construction ('' is "unset": a profile's
      // own bound, Envelope.Inference.<Key>, falls back to Envelope.<Key>).
      if (std::string Why = V == O.Default ? "" : checkOption(Key, V); !Why.empty()) {
        configurationDiag("%0; the default '%1' is used") << Why << O.Default;
        V = O.Default;
      }
      Opts.set(Key, V);
    }
    Impl->configure(Opts);
  }

  void storeOptions(ClangTidyOptions::OptionMap &Map) override {
    for (const OptionSpec &O : allOptions())
      Options.store(Map, O.Name, Opts.get(std::string(Impl->check()) + "." + O.Name, O.Default));
  }

  void registerMatchers(ast_matchers::MatchFinder *Finder) override {
    Finder->addMatcher(ast_matchers::translationUnitDecl().bind("tu"), this);
  }

  void check(const ast_matchers::MatchFinder::MatchResult &Result) override {
    ASTContext &Ctx = *Result.Context;
    const LangOptions &LO = Ctx.getLangOpts();
    Language L = LO.HIP ? Language::Hip : LO.CUDA ? Language::Cuda : Language::Cpp;
    std::vector<std::unique_ptr<Function>> Fns;
    lowerASTContext(Ctx, L, /*MainFileOnly=*/false, Fns);
    std::vector<Finding> Out;
    for (const auto &F : Fns)
      Impl->run(*F, Out);
    dedupeAndSort(Out);
    SourceManager &SM = Ctx.getSourceManager();
    // The CLI's suppression comments (codes, kvlint: ignore, noqa,
    // NOLINTBEGIN/END with codes), read from each file's buffer; clang-tidy
    // itself still applies NOLINT with check names.
    std::map<FileID, std::unique_ptr<SuppressionMap>> Maps;
    auto MapOf = [&](SourceLocation Loc) -> SuppressionMap & {
      FileID FID = SM.getFileID(Loc);
      auto &M = Maps[FID];
      if (!M)
        M = std::make_unique<SuppressionMap>(SM.getBufferData(FID).str());
      return *M;
    };
    if (firstEnabled())
      warnAboutSuppressions(SM, MapOf(SM.getLocForStartOfFile(SM.getMainFileID())));
    for (const Finding &Fd : Out) {
      SourceLocation Loc = locate(SM, Fd.Range.Begin);
      if (Loc.isInvalid())
        continue;
      if (MapOf(Loc).suppresses(Fd))
        continue;
      {
      // One diagnostic at a time: the warning is emitted when D goes out of
      // scope, before its notes are started.
      auto D = diag(Loc, "%0") << Fd.Message;
      for (const FixIt &X : Fd.Fixes) {
        SourceLocation At = locate(SM, X.Begin);
        if (At.isInvalid())
          continue;
        if (X.Length == 0)
          D << FixItHint::CreateInsertion(At, X.Text);
        else
          D << FixItHint::CreateReplacement(
              CharSourceRange::getCharRange(At, At.getLocWithOffset(X.Length)), X.Text);
      }
      }
      for (const Note &N : Fd.Notes) {
        SourceLocation NL = locate(SM, N.Range.Begin);
        if (NL.isValid())
          diag(NL, "%0", DiagnosticIDs::Note) << N.Message;
      }
    }
  }

private:
  /// True for the first kvlint check clang-tidy runs in this translation
  /// unit's order (the registry's): it alone warns about the comments.
  bool firstEnabled() const {
    for (const RuleInfo &I : ruleRegistry())
      if (TidyCtx->isCheckEnabled(I.Check))
        return I.Check == std::string(Impl->check());
    return false;
  }

  void warnAboutSuppressions(SourceManager &SM, const SuppressionMap &M) {
    FileID Main = SM.getMainFileID();
    for (const SuppressionProblem &P : M.Problems) {
      SourceLocation L = SM.translateLineCol(Main, P.Line, P.Col);
      if (L.isValid())
        diag(L, "%0") << P.Message;
    }
  }

  std::vector<OptionSpec> allOptions() const {
    std::vector<OptionSpec> All = Impl->options();
    for (const OptionSpec &O : Rule::sharedOptions())
      All.push_back(O);
    return All;
  }

  static SourceLocation locate(SourceManager &SM, const SrcLoc &L) {
    auto FE = SM.getFileManager().getOptionalFileRef(L.File);
    if (!FE)
      return {};
    FileID FID = SM.translateFile(*FE);
    if (FID.isInvalid())
      return {};
    return SM.getLocForStartOfFile(FID).getLocWithOffset(L.Offset);
  }

  std::unique_ptr<Rule> Impl;
  kvlint::Options Opts;
  ClangTidyContext *TidyCtx;
};

class KvlintModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    for (const RuleInfo &I : ruleRegistry()) {
      RuleInfo Copy = I;
      Factories.registerCheckFactory(
          I.Check, [Copy](StringRef Name, ClangTidyContext *Context) {
            return std::make_unique<RuleCheck>(Name, Context, Copy);
          });
    }
  }
};

} // namespace
} // namespace kvlint

static clang::tidy::ClangTidyModuleRegistry::Add<kvlint::KvlintModule>
    KvlintModuleReg("kvlint-module", "kvlint: paged KV-cache index checks (KV001, KV002).");
