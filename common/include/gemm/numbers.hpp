// The one number parser of the command line and the environment (the harness's options, peak,
// bandwidth, probe, noise, the reference runners, GEMM_CACHES): strict numbers, where the whole
// text must be the number (no space, newline or sign before it), in range; and option values.
// One set of messages: "OPTION 'VALUE': problem", the value through shown():
//     --reps '2.5': not a whole number
//     --reps '0': must be from 1 to 100
//     --threads '9': must be from 1 to 8 (4 x the 2 CPUs this process may use)
//     --time-limit 'abc': not a number
//     --time-limit '0': must be above 0 and at most 1000000
// Each parse_ returns "" and sets `out`, or the one-line problem; the _option forms throw it as
// a UsageError, which the program prints after its name before exiting 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gemm {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "OPTION 'VALUE'", both through shown(); just "'VALUE'" when option is empty.
std::string quoted(std::string_view option, std::string_view value);

// A whole number from lo to hi; `why` (if any) follows the range in the message.
std::string parse_whole(std::string_view option, std::string_view value, long long lo, long long hi, long long& out,
                        std::string_view why = "");
// A finite number from lo to hi; above lo only when lo_open.
std::string parse_real(std::string_view option, std::string_view value, double lo, double hi, double& out,
                       bool lo_open = false);
// A size in bytes, as sysfs and GEMM_CACHES write it: digits, then optionally K, M or G
// (binary, either case), from lo to hi bytes.
std::string parse_bytes(std::string_view option, std::string_view value, long long lo, long long hi, long long& out);

long long whole_option(std::string_view option, std::string_view value, long long lo, long long hi,
                       std::string_view why = "");
double real_option(std::string_view option, std::string_view value, double lo, double hi, bool lo_open = false);
// The common cases: a count from 1 to hi; a number above 0 and at most hi.
inline int count_option(std::string_view option, std::string_view value, int hi) {
    return static_cast<int>(whole_option(option, value, 1, hi));
}
inline double positive_option(std::string_view option, std::string_view value, double hi) {
    return real_option(option, value, 0, hi, true);
}

// The value of a step's tunable (gemm::Param), wherever it comes from: --NAME N on the command
// line (the harness, probe) or a line of step 10's wisdom file (steps/10_tuned/wisdom.cpp). One
// rule: a whole number from 0 (automatic) to cpu::kMaxBlock. "" and `out` set, or the problem
// ("--mc 'x': not a whole number", "--mc '-1': must be from 0 to 65536 (0: automatic)").
std::string parse_param(std::string_view option, std::string_view value, int& out);

// A comma-separated list of names, each once ("--isa avx2,avx512", "--levels L1,L2"): the
// names, or a UsageError for an empty list or entry ("--isa 'sse,': has an empty entry") or
// a name given twice ("--levels 'L1,L1': lists L1 twice") unless `unique` is false.
std::vector<std::string> list_option(std::string_view option, std::string_view list, bool unique = true);

// The value of the option argv[i], which is argv[i + 1] (i moves on to it). None, or a next
// word that is itself an option ("--csv --reps 3"), means the value was forgotten:
// "--csv: needs a value".
std::string option_value(int argc, const char* const* argv, int& i);

// The first option that argv gives twice ("--reps" for "--reps 3 --reps=5"), or "". Every
// program refuses a repeated option rather than keep one of the two silently; since no value
// may start with --, every word starting with -- is an option.
std::string repeated_option(int argc, const char* const* argv);

// Whether -h or --help is among the arguments: wherever it is, it wins over everything else
// on the line, even a bad or repeated option (the rule of every program here).
bool wants_help(int argc, const char* const* argv);

// The user's text as a message shows it: control characters (a newline, an escape) as '?',
// so the message stays one line and cannot drive the terminal.
std::string shown(std::string_view text);

// What every program does first, before it prints or opens anything (docs/contracts.md,
// "Exit status"): descriptors 0, 1 and 2 are made to be open, so that a file opened later
// never becomes standard output. A closed one gets /dev/null opened the other way round
// (a closed standard output: read-only), so that using it still fails: output written to a
// closed standard output is exit 3, as `> /dev/full` is, and a closed standard input is
// unreadable, not empty.
void guard_standard_descriptors();

// The environment every program checks once its --help had its chance, before it prints
// anything: a malformed GEMM_CACHES (gemm/cpu.hpp). Returns "" or the one-line problem, to
// print after the program's name and exit 2 with.
std::string environment_problem();

// The thread cap (docs/contracts.md, "Threads"), whichever way a count arrives (--threads,
// OMP_NUM_THREADS, a default): per_cpu threads for each CPU this process may use. The step
// executables and the reference runners allow 4 (more only time the scheduler, and a library
// may take minutes to start them); the meters, which pin a thread to each CPU, allow 1 (two
// threads on one CPU would count it twice).
constexpr int kThreadsPerCpu = 4;
constexpr int kPinnedThreadsPerCpu = 1;
int max_threads(int per_cpu);
// Why max_threads(per_cpu) is the limit, for messages: "4 x the 2 CPUs this process may use".
std::string thread_cap_reason(int per_cpu);
// "" when count is from 1 to max_threads(per_cpu), else the one-line problem naming where the
// count came from: "OMP_NUM_THREADS '999': must be from 1 to 8 (4 x the 2 CPUs ...)".
std::string thread_count_problem(std::string_view source, std::string_view value, long count, int per_cpu);
// --threads N for the tools: a whole number within the cap, else a UsageError.
int threads_option(std::string_view option, std::string_view value, int per_cpu);

}  // namespace gemm
