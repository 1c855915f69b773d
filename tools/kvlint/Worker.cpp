//===- Worker.cpp - each file's analysis in a process of its own ----------===//
#include "Worker.h"
#include "kvlint/Parallel.h"
#include "SafeWrite.h"
#include "Wire.h"

#include "llvm/Support/ErrorHandling.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <new>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||                  \
    __has_feature(thread_sanitizer)
#define KVLINT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KVLINT_SANITIZED 1
#endif

namespace kvlint {
namespace {

using Clock = std::chrono::steady_clock;

/// The stack each worker analyses on: deep but finite recursion in clang's
/// parser (thousands of nested expressions) fits; unbounded recursion still
/// ends in a fault that costs one file.
constexpr size_t AnalysisStackBytes = size_t(512) << 20;

/// Resident and virtual size of a process, in bytes (0 when unreadable).
void memoryOf(pid_t Pid, uint64_t &Virtual, uint64_t &Resident) {
  Virtual = Resident = 0;
  std::ifstream In("/proc/" + (Pid ? std::to_string(Pid) : std::string("self")) + "/statm");
  uint64_t V = 0, R = 0;
  if (In >> V >> R) {
    uint64_t Page = uint64_t(::sysconf(_SC_PAGESIZE));
    Virtual = V * Page, Resident = R * Page;
  }
}

bool readAll(int Fd, char *P, size_t N) {
  while (N) {
    ssize_t R = ::read(Fd, P, N);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      return false;
    P += R, N -= size_t(R);
  }
  return true;
}

[[noreturn]] void outOfMemory() { ::_exit(WorkerOutOfMemory); }

void badAlloc(void *, const char *, bool) { outOfMemory(); }

struct ChildArgs {
  int Task, Res;
  const std::function<FileResult(size_t)> *Analyse;
  const std::function<std::string(size_t)> *Name;
};

void *childLoop(void *P) {
  const ChildArgs &A = *static_cast<const ChildArgs *>(P);
  for (;;) {
    uint64_t I;
    if (!readAll(A.Task, reinterpret_cast<char *>(&I), sizeof I))
      return nullptr; // the driver has no more work
    FileResult R;
    try {
      R = (*A.Analyse)(size_t(I));
    } catch (const std::bad_alloc &) {
      outOfMemory();
    } catch (const std::exception &E) {
      R = FileResult();
      R.Notes.push_back({(*A.Name)(size_t(I)), std::string("internal error: ") + E.what(), true});
      R.Failed = true;
    }
    std::string Bytes = encodeResult(R);
    uint64_t N = Bytes.size();
    if (!writeFd(A.Res, reinterpret_cast<const char *>(&N), sizeof N) ||
        !writeFd(A.Res, Bytes.data(), Bytes.size()))
      return nullptr;
  }
}

[[noreturn]] void runChild(const ChildArgs &A, unsigned MemoryMiB) {
  ::signal(SIGPIPE, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive the driver
  struct rlimit NoCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &NoCore); // a crash leaves no core file in the tree
#ifndef KVLINT_SANITIZED
  // A hard cap on the address space this worker may add: an allocation past
  // it fails (and ends the worker with WorkerOutOfMemory) instead of taking
  // the machine's memory. Sanitizers reserve terabytes of shadow: there the
  // driver's resident-size check alone applies.
  uint64_t Virtual, Resident;
  memoryOf(0, Virtual, Resident);
  if (Virtual) {
    uint64_t Cap = Virtual + AnalysisStackBytes + (uint64_t(MemoryMiB) << 20);
    struct rlimit AS = {rlim_t(Cap), rlim_t(Cap)};
    ::setrlimit(RLIMIT_AS, &AS);
  }
#else
  (void)MemoryMiB;
#endif
  std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler(badAlloc);
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setstacksize(&Attr, AnalysisStackBytes);
  pthread_t T;
  ChildArgs Copy = A;
  if (pthread_create(&T, &Attr, childLoop, &Copy) != 0)
    childLoop(&Copy); // no big stack to be had: the ordinary one
  else
    pthread_join(T, nullptr);
  ::_exit(0);
}

struct Slot {
  pid_t Pid = -1;
  int Task = -1, Res = -1;
  long Cur = -1; ///< the file it works on, -1 when idle
  std::string Buf;
  Clock::time_point Start;
  uint64_t ResidentAtStart = 0;
};

void closeFd(int &Fd) {
  if (Fd >= 0)
    ::close(Fd);
  Fd = -1;
}

void runThreads(std::vector<FileResult> &Results,
                const std::function<FileResult(size_t)> &Analyse,
                const std::function<std::string(size_t)> &Name, unsigned Jobs) {
  forEachIndex(Results.size(), Jobs, [&](size_t I) {
    try {
      Results[I] = Analyse(I);
    } catch (const std::exception &E) {
      Results[I] = FileResult();
      Results[I].Notes.push_back({Name(I), std::string("internal error: ") + E.what(), true});
      Results[I].Failed = true;
    }
  });
}

} // namespace

std::string describeWorkerEnd(int Status, const PoolLimits &L) {
  if (WIFEXITED(Status)) {
    if (WEXITSTATUS(Status) == WorkerOutOfMemory)
      return "ran out of memory (the cap is " + std::to_string(L.MemoryMiB) +
             " MiB a file; --file-memory sets it)";
    return "the analysis ended with exit status " + std::to_string(WEXITSTATUS(Status));
  }
  if (WIFSIGNALED(Status)) {
    int S = WTERMSIG(Status);
    std::string Name = S == SIGSEGV ? "SIGSEGV" : S == SIGABRT ? "SIGABRT" : S == SIGILL ? "SIGILL"
                     : S == SIGBUS  ? "SIGBUS"  : S == SIGFPE  ? "SIGFPE"  : S == SIGKILL ? "SIGKILL"
                                                                         : "signal " + std::to_string(S);
    std::string Why = S == SIGSEGV || S == SIGBUS ? "a stack overflow or a fault"
                      : S == SIGABRT || S == SIGILL ? "a fatal error"
                                                    : "killed";
    return "the analysis crashed (" + Name + ": " + Why + " in clang or kvlint)";
  }
  return "the analysis ended abnormally";
}

void runPool(std::vector<FileResult> &Results, const std::function<FileResult(size_t)> &Analyse,
             const std::function<std::string(size_t)> &Name, const PoolLimits &L) {
  size_t N = Results.size();
  unsigned Jobs = std::max(1u, std::min<unsigned>(L.Jobs, unsigned(std::max<size_t>(1, N))));
  if (!L.Isolate) {
    runThreads(Results, Analyse, Name, Jobs);
    return;
  }
  std::cout.flush();
  std::cerr.flush();
  auto OldPipe = ::signal(SIGPIPE, SIG_IGN); // a dead worker's task pipe
  std::vector<Slot> Slots(Jobs);
  size_t Next = 0, Done = 0;

  auto Fail = [&](size_t I, const std::string &Why) {
    Results[I] = FileResult();
    Results[I].Notes.push_back({Name(I), Why + "; file skipped", true});
    Results[I].Failed = true;
    ++Done;
  };
  auto Spawn = [&](Slot &S) -> bool {
    int TaskP[2], ResP[2];
    if (::pipe2(TaskP, O_CLOEXEC) != 0)
      return false;
    if (::pipe2(ResP, O_CLOEXEC) != 0) {
      ::close(TaskP[0]), ::close(TaskP[1]);
      return false;
    }
    uint64_t V;
    memoryOf(0, V, S.ResidentAtStart);
    pid_t Pid = ::fork();
    if (Pid < 0) {
      ::close(TaskP[0]), ::close(TaskP[1]), ::close(ResP[0]), ::close(ResP[1]);
      return false;
    }
    if (Pid == 0) {
      for (Slot &O : Slots) // the other workers' pipes stay theirs
        if (&O != &S)
          closeFd(O.Task), closeFd(O.Res);
      ::close(TaskP[1]), ::close(ResP[0]);
      runChild({TaskP[0], ResP[1], &Analyse, &Name}, L.MemoryMiB);
    }
    ::close(TaskP[0]), ::close(ResP[1]);
    S.Pid = Pid, S.Task = TaskP[1], S.Res = ResP[0], S.Cur = -1;
    S.Buf.clear();
    ::fcntl(S.Res, F_SETFL, ::fcntl(S.Res, F_GETFL) | O_NONBLOCK);
    return true;
  };
  auto Reap = [&](Slot &S) -> int {
    closeFd(S.Task), closeFd(S.Res);
    int Status = 0;
    if (S.Pid > 0)
      while (::waitpid(S.Pid, &Status, 0) < 0 && errno == EINTR) {
      }
    S.Pid = -1;
    return Status;
  };
  auto Assign = [&](Slot &S) {
    while (Next < N) {
      if (S.Pid < 0 && !Spawn(S)) {
        // No process to be had: this file runs here, unisolated.
        size_t I = Next++;
        Results[I] = Analyse(I);
        ++Done;
        continue;
      }
      uint64_t I = Next;
      if (!writeFd(S.Task, reinterpret_cast<const char *>(&I), sizeof I)) {
        Reap(S);
        continue; // respawn and retry the same file
      }
      ++Next;
      S.Cur = long(I), S.Start = Clock::now();
      return;
    }
  };
  for (Slot &S : Slots)
    Assign(S);

  while (Done < N) {
    std::vector<pollfd> Fds;
    std::vector<Slot *> Of;
    for (Slot &S : Slots)
      if (S.Cur >= 0) {
        Fds.push_back({S.Res, POLLIN, 0});
        Of.push_back(&S);
      }
    if (Fds.empty())
      break; // nothing in flight (every spawn failed and ran here)
    int Rc = ::poll(Fds.data(), Fds.size(), 250);
    if (Rc < 0 && errno != EINTR)
      break;
    for (size_t K = 0; K < Fds.size(); ++K) {
      Slot &S = *Of[K];
      if (!(Fds[K].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char Buf[65536];
      ssize_t R;
      bool Eof = false;
      while ((R = ::read(S.Res, Buf, sizeof Buf)) > 0)
        S.Buf.append(Buf, size_t(R));
      if (R == 0 || (R < 0 && errno != EAGAIN && errno != EINTR))
        Eof = true;
      uint64_t Len;
      if (S.Buf.size() >= sizeof Len) {
        std::memcpy(&Len, S.Buf.data(), sizeof Len);
        if (S.Buf.size() >= sizeof Len + Len) {
          size_t I = size_t(S.Cur);
          if (!decodeResult(S.Buf.substr(sizeof Len, Len), Results[I]))
            Fail(I, "the analysis sent a malformed result");
          else
            ++Done;
          S.Buf.erase(0, sizeof Len + Len);
          S.Cur = -1;
          if (!Eof)
            Assign(S);
        }
      }
      if (Eof) {
        int Status = Reap(S);
        if (S.Cur >= 0) {
          Fail(size_t(S.Cur), describeWorkerEnd(Status, L));
          S.Cur = -1;
        }
        Assign(S);
      }
    }
    // The caps: wall-clock time and resident memory of each file's worker.
    auto Now = Clock::now();
    for (Slot &S : Slots) {
      if (S.Cur < 0 || S.Pid < 0)
        continue;
      std::string Why;
      if (Now - S.Start > std::chrono::seconds(L.TimeoutSeconds)) {
        Why = "the analysis took longer than " + std::to_string(L.TimeoutSeconds) +
              " s (--file-timeout sets the cap)";
      } else {
        uint64_t V, Res;
        memoryOf(S.Pid, V, Res);
        if (Res > S.ResidentAtStart && Res - S.ResidentAtStart > (uint64_t(L.MemoryMiB) << 20))
          Why = "the analysis used more than " + std::to_string(L.MemoryMiB) +
                " MiB (--file-memory sets the cap)";
      }
      if (Why.empty())
        continue;
      ::kill(S.Pid, SIGKILL);
      Reap(S);
      Fail(size_t(S.Cur), Why);
      S.Cur = -1;
      Assign(S);
    }
  }
  for (Slot &S : Slots)
    if (S.Pid > 0)
      Reap(S);
  ::signal(SIGPIPE, OldPipe);
}

} // namespace kvlint
