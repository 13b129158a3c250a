// The command-line rules of the tools (peak, bandwidth): strict numbers, where the whole
// text must be the number, with no spaces, in range; and option values. Each parse_ returns
// "" and sets `out`, or the one-line problem ("--reps '0': must be from 1 to 100"); the
// _option forms throw it as a UsageError, which the tool prints before exiting 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gemm {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A whole number from 1 to hi.
std::string parse_count(const std::string& option, const std::string& value, int hi, int& out);
// A finite number above 0 and at most hi.
std::string parse_positive(const std::string& option, const std::string& value, double hi, double& out);
int count_option(const std::string& option, const std::string& value, int hi);
double positive_option(const std::string& option, const std::string& value, double hi);
// The value of the option argv[i], which is argv[i + 1] (i moves on to it). None, or a next
// word that is itself an option ("--csv --reps 3"), means the value was forgotten.
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
int threads_option(const std::string& option, const std::string& value, int per_cpu);

}  // namespace gemm
