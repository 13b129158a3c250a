// Step 10's wisdom: values of its params that tools/tune.py measured best on this machine,
// kept in a small text file that every run reads (docs/contracts.md, "Wisdom (step 10)";
// README: "Wisdom: values tuned on this machine"). The file, as the tuner writes it:
//
//     # gemm-steps wisdom: ...                      comments and blank lines are skipped
//     format 1
//     cpu GenuineIntel 6 207 Emerald Rapids         where it was measured, as bin/cpuinfo
//     caches 49152 2097152 314572800                --identity prints it (gemm::cpu::machine_lines)
//     kernel avx512                                 the variant the values are for
//     threads 1 mc=112 kc=2336 nc=16832             a run on one thread
//     threads all mc=224 kc=1168 nc=8192            a run on more
//     noise 0.021                                   the tuner's spread (read, not used)
//
// Anything else refuses the whole file, with one line naming it and its first problem; so
// does a file from another CPU, other caches or another kernel. Then the rules are used.
#pragma once

#include <gemm/registry.hpp>

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace step10::wisdom {

// The longest file and line read (the tuner writes about 300 bytes in 8 lines).
constexpr long kMaxBytes = 64 * 1024;
constexpr int kMaxLine = 1024;

// A threads line: the params it sets, in the file's order.
using Values = std::vector<std::pair<const gemm::Param*, int>>;

struct Machine {
    std::string vendor;
    long long family = -1, model = -1;
    std::string name;          // the microarchitecture: shown, not compared
    long long caches[3] = {};  // L1d, L2, L3 in bytes
};

struct File {
    Machine machine;
    std::string kernel;
    bool has_one = false, has_all = false;   // a "threads 1", a "threads all" line
    Values one, all;
    double noise = 0;
};

// The file's text, checked line by line: "" and `out` filled, or its first problem
// ("line 5: unknown parameter \"foo\"", "no \"kernel\" line"). `params` are the names a
// threads line may set, `variants` those `kernel` may name.
std::string parse(std::string_view text, std::span<const gemm::Param> params,
                  std::span<const gemm::Variant> variants, File& out);

// This machine as the file records it, from the lines `cpuinfo --identity` prints.
Machine this_machine();

// "" when the file's values are for this machine and `variant`, else why not (the line's middle:
// "was measured on ..., this is ...").
std::string mismatch(const File& file, const Machine& here, std::string_view variant);

// What StepDef::tuned_params does for step 10: finds the file (GEMM_WISDOM, else
// <the executable's folder>/../wisdom/step10_tuned.txt), reads and checks it, and for a run
// on `threads` threads (1: the "threads 1" line, more: "threads all") puts the values of that
// line in `values`, for the run's Setting; threads = 0 gives none and describes (bin/cpuinfo).
gemm::TunedParams take(std::span<const gemm::Param> params, std::span<const gemm::Variant> variants,
                       std::string_view variant, int threads, Values& values);

// The path as one word of the params column: bytes that would end the word or the CSV field
// (space, comma, quote, control characters) and '%' itself as %XX.
std::string path_word(std::string_view path);

}  // namespace step10::wisdom
