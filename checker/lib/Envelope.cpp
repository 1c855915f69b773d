//===- Envelope.cpp - the deployment envelope -------------------------------===//
#include "kvlint/Envelope.h"
#include "kvlint/OptionCheck.h"

#include <algorithm>
#include <cctype>

namespace kvlint {

namespace {

struct DimSpec {
  const char *Key;
  int64_t Max; ///< the inference profile's bound
  const char *Names;
  const char *Source;
};

/// The training profile's bounds where they differ from inference's: a
/// varlen training batch of 1M tokens (fla, Liger: 8 x 128k-token sequences)
/// is 8 times a serving step.
struct TrainSpec {
  const char *Key;
  int64_t Max;
  const char *Source;
};
const TrainSpec Training[] = {
    {"Tokens", 1048576,
     "training: a varlen batch of 1M tokens (8 x 128k-token sequences: fla, Liger)"},
    {"Elements", 17179869184,
     "training: a [tokens, hidden] activation at 1M tokens x 16,384 (Envelope.Tokens x "
     "Envelope.Hidden)"},
};

// First match wins: specific names before general ones (Stride before
// KvPages, so that block_stride is a stride; HeadDim before Heads; Tokens
// before Context, so that cu_seqlens and seqlen_q are tokens of the step
// while seq_lens and seqlen_k are context).
// docs/envelope.md gives each default's source at length.
const DimSpec Specs[] = {
    {"BatchStride", 2147483648,
     "batch_?stride|stride_?batch|^stride_?[a-z]{0,3}_?[bz]$|_stride_?b$",
     "the stride between sequences of a [B, T, H, D] tensor (stride_qb, stride_z): one "
     "sequence's T x H x D, up to Envelope.SeqLen x Envelope.Hidden; a batch index times it "
     "is bounded by all elements of the batch (Envelope.Elements)"},
    {"Stride", 16384, "stride|^ld[a-z]?$|pitch",
     "a row of a [tokens, hidden] activation at hidden 16,384 (Llama 3.1 405B); wider rows "
     "(vocabulary, all heads of a token) need a name or a fact"},
    {"Tile", 1024, "tile_?(len|size|m|n|k|q|kv|rows|cols)$",
     "the rows or columns of one CTA's tile (QO_TILE_LEN, CTA_TILE_Q, TILE_SIZE): a "
     "compile-time size, 16-256 in practice; 1,024 leaves headroom"},
    {"BlockSize", 1024,
     "^(kv_?|cache_?)?(block|page|blk)_?(size|sz|len)$|^bs$|^ps$|^page_?tokens$|"
     "^page_?block_?size$|^page_?token_?(begin|end|start|idx|offset)$|^token_?in_?page$|"
     "^in_?page_?(idx|offset|pos)$",
     "KV page size: 64 (FlashMLA), 128-256 (SGLang, TensorRT-LLM); 1,024 leaves headroom. A "
     "token's position inside one page (page_token_begin, token_in_page) is below it"},
    {"Chunk", 128, "chunk_?(size|len)|^B[TC]$",
     "chunked kernels (linear attention, SSMs) use chunks of 16-64 tokens (fla, mamba); 128 "
     "leaves headroom"},
    {"Vocab", 262144, "vocab", "Gemma 3: 262,144 tokens"},
    {"Elements", 4294967296,
     "^(numel|n_?elem(ent)?s|num_?elem(ent)?s|total_?elem(ent)?s|size_?elem(ent)?s)$",
     "all elements of one tensor: a [tokens, hidden] activation of a serving step at 262,144 "
     "tokens x 16,384 (Envelope.Tokens x Envelope.Hidden)"},
    {"SpecTokens", 128,
     "^(max_?|num_?|n_?)*(spec|draft|speculative)_?(query_?)?(len|lens|tokens?|steps)?$",
     "speculative tokens of one request (max_spec_len, num_draft_tokens; not cu_num_draft_tokens, "
     "a step's running count): vLLM's rejection sampler asserts max_spec_len <= 128 "
     "(MAX_SPEC_LEN); EAGLE trees and n-gram drafts use fewer"},
    {"Experts", 512, "^(?!.*(start|loc|offset|token)).*expert", "Qwen3-Next: 512 routed experts"},
    {"TopK", 1024, "top_?k|experts?_?per_?token", "sampling top-k up to 1,024; MoE top-k is at most 22"},
    {"Layers", 128, "layer", "Llama 3.1 405B: 126 layers"},
    {"Ranks", 1024,
     "^(n_?|num_?)?ranks?$|^rank_?(id|idx)$|world_?size|^(tp|ep|dp|cp)_?(size|rank)$",
     "GPUs in one communication group: an NVL72 domain (72), expert parallelism over 256-320 "
     "GPUs (DeepSeek V3 serving); 1,024 leaves headroom"},
    {"HeadDim", 576,
     "head_?(dim|size)|headdim|^d_?head$|^hd$|^d_?[kv]$|^qk_?dim|rope_?dim|rotary_?dim|kv_?lora|lora_?rank|"
     "^d_?rounded$|^[KV]$|d_?state|state_?dim",
     "MLA: 512 latent + 64 rope dimensions (DeepSeek V3)"},
    {"Heads", 128,
     "^(?!.*(tokens?_?heads?(_?(idx|id|index))?$|lookahead)).*head|"
     "^h$|^h_?[qkv]$|^h_?kv$|^nh|^n_?h$|^num_?[qk]?_?heads|^kv_?heads|^q_?heads|"
     "^(pid|bid|i|idx|off)_?h[qkv]?$",
     "DeepSeek V3/R1: 128 query heads"},
    {"Hidden", 16384,
     "hidden|d_?model|model_?dim|n_?embd|embed_?dim|^dim$|^token_?dim$|(in|per)_?token$",
     "Llama 3.1 405B: hidden size 16,384"},
    {"Intermediate", 65536, "intermediate|ffn|inter_?(size|dim)|inner_?dim|^d$",
     "Llama 3.1 405B: FFN size 53,248; a bare 'd' is an activation row (act_and_mul's d)"},
    {"KvSlots", 8388608,
     "slot|^loc$|^(?!.*start_?loc$).*_loc$|^loc_|cache_?loc|kv_?indices|req_?to_?token|token_?to_?kv",
     "pools past 7.3M slots run in production: SGLang's DeepSeek MLA store wrapped at slot "
     "7,341,824 (3.7M-slot pools are common on MI300X)"},
    {"KvPages", 8388608,
     "page|^(?![mnk]_?block).*block_?(id|idx|ids|num|no|table|tables)|^block$|^blk|physical_?block|"
     "^(?!num_?blocks_?per)num_?blocks|^indices$|"
     "^kv_?indptr$|^(src|dst)_?blocks$|^(?!req).*(state|cache)_?(batch_?)?indices|"
     "max_?num_?blocks|max_?blocks",
     "at page size 1 (SGLang) pages are slots: 8,388,608"},
    {"Tokens", 262144,
     "token|^tok|^bos$|^eos$|cu_?seqlens|^(q|qo|o)_?indptr$|query_?start|^q_?start|start_?loc|^m$|"
     "^(size|num|n|total)_?m$|^num_?rows$|"
     "^n_?rows$|seq_?len_?q|seqlen_?q|^q_?len|query_?len|max_?seqlen_?q",
     "tokens of one serving step: 262,144 (vLLM's start-up profile run and unchunked prefill "
     "take --max-num-batched-tokens up to --max-model-len, served at 262,144; SGLang's "
     "chunked prefill runs 64k+ steps whose MoE rows are tokens x top-k)"},
    {"SeqLen", 131072, "^t$",
     "T, one sequence of a batch laid out [B, T, ...] (fla, Liger, mamba): training runs at "
     "128k context; the batch's B x T is the step's Envelope.Tokens, and a longer single "
     "sequence is the latent level's"},
    {"Context", 1048576,
     "seq_?len|seqlen|context|ctx|kv_?len|max_?seq|^pos$|^pos_|_pos$|position|^len$|_len$|"
     "cache_?len|prefix",
     "1M-token contexts (Qwen2.5-1M, Llama 4)"},
    {"Requests", 4096,
     "^req|request|batch|^b$|^bid|^num_?seqs|^n_?seqs|^seq_?(idx|id)$|^num_?reqs",
     "max running requests per step (SGLang --max-running-requests 4,096)"},
    // Defaults for values that no fact and no name bounds. Their name
    // patterns match nothing unless a user sets one.
    {"Dimension", 262144, "$^",
     "one size of a multi-dimensional tensor the host allocates, when its name says nothing "
     "(a matrix's N, a reduction's K): no such size passes the tokens of a step or a vocab; "
     "bounds the extent of the allocation, never an index"},
    {"RotaryTable", 603979776, "$^",
     "a RoPE cos/sin or frequency table, [positions, rotary_dim] (or gathered per token, "
     "[tokens, rotary_dim] per section): 1M positions x 576 (MLA's 512 + 64, the widest "
     "head); what KV001's RotaryTablePattern names caps every offset into it"},
    {"Loaded", 131072, "$^",
     "an index loaded from a table no name explains: a token, row or chunk index (KV tables "
     "are named: block tables, slot mappings, kv indices)"},
    {"Grid", 65536, "$^",
     "a launch index whose grid the launcher does not show: a program per token of a "
     "64k-token step, or per row"},
    {"Constexpr", 1024, "$^",
     "a compile-time constant of unknown value (a tile size, a template parameter)"},
    {"Unknown", 8192, "$^",
     "a parameter, member or call result that no fact and no name bounds: two such values "
     "times a warp's 32 lanes still fit, three such values do not"},
};

// A bound is a positive integer (OptionCheck.h's syntax); the CLI rejects
// anything else before this, naming the file and line.
bool parseInt(const std::string &S, int64_t &V) {
  int64_t X;
  if (!parseInteger(S, X) || X < 1)
    return false;
  V = X;
  return true;
}

// A pattern that does not compile matches nothing (the CLI rejects it before
// this, naming the file and line).
Pattern compile(const std::string &P) {
  Pattern R;
  std::string Err;
  Pattern::compile(P, R, Err);
  return R;
}

} // namespace

const char *profileName(Profile P) {
  return P == Profile::Training ? "training" : "inference";
}

Profile chooseProfile(const Function &F, const std::string &Option, std::string &Why) {
  std::string O = Option;
  std::transform(O.begin(), O.end(), O.begin(), [](unsigned char C) { return std::tolower(C); });
  if (O == "training" || O == "inference") {
    Why = "set by the Profile option";
    return O == "training" ? Profile::Training : Profile::Inference;
  }
  if (F.Prof == Profile::Training || F.Prof == Profile::Inference) {
    Why = F.ProfileWhy;
    return F.Prof;
  }
  Why = "no caller in the file puts it in training";
  return Profile::Inference;
}

Envelope::Envelope(Profile P) : Prof(P == Profile::Training ? P : Profile::Inference) {
  for (const DimSpec &S : Specs) {
    Dims.push_back({S.Key, S.Max, S.Names, S.Source, compile(S.Names)});
    if (Prof == Profile::Training)
      for (const TrainSpec &T : Training)
        if (Dims.back().Key == T.Key) {
          Dims.back().Max = T.Max;
          Dims.back().Source = T.Source;
        }
  }
}

std::vector<OptionSpec> Envelope::optionSpecs() {
  std::vector<OptionSpec> Out;
  for (const DimSpec &S : Specs) {
    Out.push_back({std::string("Envelope.") + S.Key, std::to_string(S.Max),
                   std::string("upper bound of the ") + S.Key + " dimension (" + S.Source + ")"});
    Out.push_back({std::string("Envelope.") + S.Key + ".Names", S.Names,
                   std::string("regex (case-insensitive) of value names that denote ") + S.Key});
  }
  // One profile's own bound (docs/envelope.md): unset by default, so that
  // Envelope.<Key> (both profiles) and the profile's default still apply.
  for (const char *P : {"Inference", "Training"})
    for (const DimSpec &S : Specs)
      Out.push_back({std::string("Envelope.") + P + "." + S.Key, "",
                     std::string("upper bound of the ") + S.Key + " dimension in the " + P +
                         " profile only (default: Envelope." + S.Key + ")"});
  Out.push_back({"Envelope.LatentScale", "16",
                 "the latent level looks this many times beyond every dimension's bound"});
  Out.push_back({"Profile", "auto",
                 "the deployment profile kernels are judged in: auto (training for a kernel "
                 "launched only from an autograd.Function's forward/backward or from a training "
                 "module, inference otherwise), inference (262,144 tokens per step), training "
                 "(1M-token batches)"});
  return Out;
}

void Envelope::configure(const std::function<std::string(const std::string &)> &Get) {
  const char *Mine = Prof == Profile::Training ? "Envelope.Training." : "Envelope.Inference.";
  for (Dimension &D : Dims) {
    int64_t V;
    // Get answers the inference default for an unset key: a training
    // envelope keeps its own bound unless the key was set to another value.
    int64_t Default = 0;
    for (const DimSpec &S : Specs)
      if (D.Key == S.Key)
        Default = S.Max;
    if (parseInt(Get("Envelope." + D.Key), V) && (Prof != Profile::Training || V != Default))
      D.Max = V;
    if (parseInt(Get(Mine + D.Key), V))
      D.Max = V;
    std::string N = Get("Envelope." + D.Key + ".Names");
    if (!N.empty()) {
      D.Names = N;
      D.Re = compile(N);
    }
  }
  int64_t S;
  if (parseInt(Get("Envelope.LatentScale"), S))
    LatentScale = S;
}

std::string leafName(const std::string &Name) {
  size_t P = Name.find_last_of(".>:");
  std::string L = P == std::string::npos ? Name : Name.substr(P + 1);
  if (L.size() > 1 && L[0] == 'k' && std::isupper(static_cast<unsigned char>(L[1])))
    L = L.substr(1); // kPageSize
  return L;
}

bool Envelope::isSize(const Dimension &D) const {
  static const char *Index[] = {"KvSlots", "KvPages", "Context", "Requests", "Tokens", "SeqLen",
                                "Loaded", "Grid", "Unknown"};
  for (const char *K : Index)
    if (D.Key == K)
      return false;
  return true;
}

const Dimension *Envelope::byName(const std::string &Name) const {
  std::string L = leafName(Name);
  if (L.empty())
    return nullptr;
  for (const Dimension &D : Dims)
    if (D.Re.search(L))
      return &D;
  return nullptr;
}

const Dimension *Envelope::byKey(const std::string &Key) const {
  for (const Dimension &D : Dims)
    if (D.Key == Key)
      return &D;
  return nullptr;
}

int64_t Envelope::bound(const Dimension &D, bool Beyond) const {
  if (!Beyond)
    return D.Max;
  __int128 V = __int128(D.Max) * LatentScale;
  return V > (__int128(1) << 62) ? int64_t(1) << 62 : int64_t(V);
}

std::string withCommas(int64_t V) {
  bool Neg = V < 0;
  unsigned long long U = Neg ? 0ull - (unsigned long long)V : (unsigned long long)V;
  std::string D = std::to_string(U), Out;
  for (size_t I = 0; I < D.size(); ++I) {
    if (I && (D.size() - I) % 3 == 0)
      Out += ',';
    Out += D[I];
  }
  return Neg ? "-" + Out : Out;
}

} // namespace kvlint
