// The one parser of numbers and option values, for the command line and the environment
// (docs/contracts.md, "Exit status"): the whole text is the number, in range; each message is
// "OPTION 'VALUE': problem" (--reps '0': must be from 1 to 100), the value through shown().
// Each parse_ returns "" and sets `out`, or the problem; the _option forms throw it as a UsageError.
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
std::string parse_whole(std::string_view option, std::string_view value, long long lo, long long hi,
                        long long& out, std::string_view why = "");
// A finite number from lo to hi; above lo only when lo_open.
std::string parse_real(std::string_view option, std::string_view value, double lo, double hi, double& out,
                       bool lo_open = false);
// Bytes as sysfs and GEMM_CACHES write them: digits, then optionally K, M or G (binary, either case).
std::string parse_bytes(std::string_view option, std::string_view value, long long lo, long long hi,
                        long long& out);

long long whole_option(std::string_view option, std::string_view value, long long lo, long long hi,
                       std::string_view why = "");
double real_option(std::string_view option, std::string_view value, double lo, double hi, bool lo_open = false);
// A count from 1 to hi; a number above 0 and at most hi.
inline int count_option(std::string_view option, std::string_view value, int hi) {
    return static_cast<int>(whole_option(option, value, 1, hi));
}
inline double positive_option(std::string_view option, std::string_view value, double hi) {
    return real_option(option, value, 0, hi, true);
}

// A step's tunable (gemm::Param), from --NAME N or a line of step 10's wisdom file: one rule,
// a whole number from 0 (automatic) to cpu::kMaxBlock.
std::string parse_param(std::string_view option, std::string_view value, int& out);

// A comma-separated list of names: a UsageError for an empty list or entry, or (when `unique`)
// a name given twice ("--levels 'L1,L1': lists L1 twice").
std::vector<std::string> list_option(std::string_view option, std::string_view list, bool unique = true);

// The value of option argv[i], argv[i + 1] (i moves on to it); none, or a next word that is
// itself an option ("--csv --reps 3"), is the UsageError "--csv: needs a value".
std::string option_value(int argc, const char* const* argv, int& i);
// The first option given twice ("--reps" for "--reps 3 --reps=5"), or "": every word starting
// with -- is an option, since no value may.
std::string repeated_option(int argc, const char* const* argv);
// Whether -h or --help is anywhere among the arguments: it wins over everything else on the line.
bool wants_help(int argc, const char* const* argv);
// Control characters as '?', so that a message stays one line and cannot drive the terminal.
std::string shown(std::string_view text);

// What every program does first (docs/contracts.md, "Exit status"): descriptors 0, 1 and 2 are
// made open, a closed one on /dev/null the other way round, so a file opened later never becomes
// standard output and using a closed one still fails.
void guard_standard_descriptors();
// "" or the one-line problem of the environment (a malformed GEMM_CACHES), which every program
// checks once --help had its chance, before it prints anything, and exits 2 with.
std::string environment_problem();

// The thread cap (docs/contracts.md, "Threads"): per_cpu threads for each CPU this process may
// use, whichever way a count arrives (--threads, OMP_NUM_THREADS, a default).
constexpr int kThreadsPerCpu = 4;        // the steps and reference runners
constexpr int kPinnedThreadsPerCpu = 1;  // the meters, which pin a thread to each CPU
int max_threads(int per_cpu);
// Why max_threads(per_cpu) is the limit, for messages: "4 x the 2 CPUs this process may use".
std::string thread_cap_reason(int per_cpu);
// "" when count is from 1 to max_threads(per_cpu), else the problem naming where it came from:
// "OMP_NUM_THREADS '999': must be from 1 to 8 (4 x the 2 CPUs ...)".
std::string thread_count_problem(std::string_view source, std::string_view value, long count, int per_cpu);
// --threads N for the tools: a whole number within the cap, else a UsageError.
int threads_option(std::string_view option, std::string_view value, int per_cpu);

}  // namespace gemm
