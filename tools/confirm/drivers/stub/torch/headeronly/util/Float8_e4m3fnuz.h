// Stand-in for torch's header (tools/confirm/drivers): vLLM's vectorization.cuh
// names c10::Float8_e4m3fnuz only in a type check; the drivers never instantiate it.
#pragma once
#include <cstdint>
namespace c10 { struct Float8_e4m3fnuz { uint8_t x; }; }
