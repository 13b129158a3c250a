// A BLAS library's row-major sgemm, C = A * B + C (the kernel contract), run through the harness;
// built once per library (GEMM_REF_OPENBLAS or GEMM_REF_BLIS). When the set the library detected
// is narrower than the CPU's widest ISA (kernel_choice.hpp), the runner sets the library's
// variable, checks in a child that the library takes it, and runs itself again with it.
#include "kernel_choice.hpp"

#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/output_file.hpp>
#include <gemm/numbers.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#if defined(GEMM_REF_OPENBLAS)
#include <cblas.h>
#define GEMM_REF_NAME "ref_openblas"
namespace {
constexpr gemm::ref::Library kLibrary = gemm::ref::Library::openblas;
void set_threads(int n) { openblas_set_num_threads(n); }
int get_threads() { return openblas_get_num_threads(); }
// 128 MiB per thread of its pool (sized to the CPUs) at the first call: past a limit on address
// space it spins forever.
unsigned long long library_bytes(int threads) {
    return (128ULL << 20) * static_cast<unsigned long long>(std::max(threads, gemm::cpu::cores()));
}
std::string kernel_set() { return openblas_get_corename(); }
std::string library_version() {   // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "openblas 0.3.21"
    const std::string config = openblas_get_config();
    const auto space = config.find(' ');
    const auto end = config.find(' ', space + 1);
    return "openblas " + (space == std::string::npos ? std::string("?") : config.substr(space + 1, end - space - 1));
}
std::string env_value(const std::string& set) { return set; }   // the name, case-insensitive
std::vector<std::string> library_sets() { return {}; }   // no list: the names in kernel_choice.cpp
}  // namespace
#elif defined(GEMM_REF_BLIS)
#include <blis.h>
#include <cblas.h>
#define GEMM_REF_NAME "ref_blis"
namespace {
constexpr gemm::ref::Library kLibrary = gemm::ref::Library::blis;
void set_threads(int n) { bli_thread_set_num_threads(n); }
constexpr unsigned long long (*library_bytes)(int) = nullptr;   // small pools: the threads' own maps
int get_threads() {
    const int n = static_cast<int>(bli_thread_get_num_threads());
    return n > 0 ? n : 1;
}
std::string kernel_set() {
    bli_init();   // the query reads the context of the architecture chosen here
    return bli_arch_string(bli_arch_query_id());
}
std::string library_version() { return std::string("blis ") + bli_info_get_version_str(); }
// Its configurations by number: the index BLIS 0.9 reads from BLIS_ARCH_TYPE.
std::vector<std::string> library_sets() {
    std::vector<std::string> names;
    for (int id = 0; id < BLIS_NUM_ARCHS; ++id) names.emplace_back(bli_arch_string(static_cast<arch_t>(id)));
    return names;
}
// BLIS 0.9 reads BLIS_ARCH_TYPE as that index; 1.0 and later the name.
std::string env_value(const std::string& set) {
    const std::vector<std::string> sets = library_sets();
    const auto at = std::find(sets.begin(), sets.end(), set);
    if (std::string(bli_info_get_version_str()).rfind("0.", 0) != 0 || at == sets.end()) return set;
    return std::to_string(at - sets.begin());
}
}  // namespace
#else
#error "define GEMM_REF_OPENBLAS or GEMM_REF_BLIS"
#endif

namespace {

constexpr const char* kChildDetected = "GEMM_REF_DETECTED";   // set in the re-run: what the library chose first
constexpr const char* kChildReason = "GEMM_REF_REASON";

void sgemm(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    if (m == 0 || n == 0 || k == 0) return;   // BLAS wants lda >= 1, the contract allows lda = k = 0
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

bool always() { return true; }

#if defined(__linux__)
constexpr const char* kSelf = "/proc/self/exe";

// The kernel set the library reports in this program run again with `--kernels` and
// env_var=value, or "" when the child failed (BLIS aborts on an architecture it was not built for).
std::string probe(const std::string& env_var, const std::string& value) {
    int fds[2];
    if (pipe(fds) != 0) return "";
    const pid_t pid = fork();
    if (pid < 0) return "";
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        const int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        close(fds[0]);
        setenv(env_var.c_str(), value.c_str(), 1);
        setenv(kChildDetected, "probe", 1);
        execl(kSelf, kSelf, "--kernels", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    std::string out;
    char buf[256];
    for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(got));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
    const auto start = out.find("running ");
    if (start == std::string::npos) return "";
    const auto end = out.find_first_of(" \n", start + 8);
    return out.substr(start + 8, end - start - 8);
}
#endif

const char* const kEnvVar = kLibrary == gemm::ref::Library::openblas ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE";

// The runner's own options, taken out before the harness sees the rest.
struct Command {
    bool as_detected = false, report_only = false, help = false;
    std::vector<char*> args;
};

Command split_command(int argc, char** argv) {
    Command c;
    c.help = gemm::wants_help(argc, argv);
    for (int i = 0; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (i > 0 && a == "--as-detected") c.as_detected = true;
        else if (i > 0 && a == "--kernels") c.report_only = true;
        else c.args.push_back(argv[i]);
    }
    return c;
}

// Judges the kernel set the user forces before any kernel runs (kernel_choice.hpp) and sets the
// variable to what the library reads; an exit code, or -1 to go on.
int take_forced(const char* user_env, const std::string& user) {
    const gemm::ref::Forced forced = gemm::ref::check_forced(kLibrary, user_env, gemm::cpu::features(), library_sets());
    if (forced.verdict == gemm::ref::Forced::Verdict::names_nothing) {
        std::fprintf(stderr, "%s: %s '%s': %s; unset it to let the runner choose\n", GEMM_REF_NAME, kEnvVar,
                     user.c_str(), forced.problem.c_str());
        return gemm::kExitUsage;
    }
    if (forced.verdict == gemm::ref::Forced::Verdict::cpu_lacks) {
        std::fprintf(stderr, "%s: skipped: %s '%s': %s\n", GEMM_REF_NAME, kEnvVar, user.c_str(),
                     forced.problem.c_str());
        return gemm::kExitUnsupported;
    }
    // BLIS 0.9 takes the number of the set (a name would read as 0).
    const std::string value = env_value(forced.kernel_set);
    if (value != user_env) setenv(kEnvVar, value.c_str(), 1);
#if defined(__linux__)
    // Tried in a child first: BLIS aborts on an architecture it was not built with (a usage error).
    if (probe(kEnvVar, value).empty()) {
        std::fprintf(stderr, "%s: %s '%s': the library fails to start with it; unset it to let the runner choose\n",
                     GEMM_REF_NAME, kEnvVar, user.c_str());
        return gemm::kExitUsage;
    }
#endif
    return -1;
}

// The set to run and why. When the library's own choice is narrower than the CPU's widest ISA,
// this runs the program again with the best set and does not return.
gemm::ref::Choice settle_kernels(const std::string& running, const char* user, bool as_detected, char** argv) {
    gemm::ref::Choice choice = gemm::ref::choose(kLibrary, running, gemm::ref::cpu_vectors(), user, as_detected);
    if (!choice.change) return choice;
#if defined(__linux__)
    const std::string value = env_value(choice.kernel_set);
    const std::string taken = probe(choice.env_var, value);
    if (gemm::ref::lower(taken) == gemm::ref::lower(choice.kernel_set)) {
        setenv(choice.env_var.c_str(), value.c_str(), 1);
        setenv(kChildDetected, running.c_str(), 1);
        setenv(kChildReason, choice.reason.c_str(), 1);
        execv(kSelf, argv);
        std::fprintf(stderr, "%s: could not run itself again (%s); measuring %s as detected\n", GEMM_REF_NAME,
                     std::strerror(errno), running.c_str());
    }
    choice.reason = "the library detected " + running + ", and its " + choice.kernel_set +
                    " kernels would not load here: measuring " + running;
#endif
    return choice;
}

void print_help_tail() {
    std::printf("\nThis runner also takes:\n"
                "  --as-detected               run the kernels the library picks by itself, even when they\n"
                "                              are narrower than this CPU's widest vector ISA\n"
                "  --kernels                   print what the library detects and what would run, and exit\n"
                "By default it runs the library's kernels for the widest vector ISA this CPU has (setting\n"
                "%s for the library when its own choice is narrower). A %s you set is obeyed\n"
                "when it names one of the library's kernel sets%s and this CPU has what that set needs:\n"
                "exit 2 when it names none, 77 when this CPU lacks what the set needs.\n"
                "The library runs on --threads or 1 thread, whatever its own variables say.\n",
                kEnvVar, kEnvVar, kLibrary == gemm::ref::Library::blis ? " (a name, or BLIS 0.9's number)" : "");
}

// OpenBLAS maps its pool (library_bytes) as it starts. Under a limit on address space with no
// room for it, a worker spins for its buffer for ever, and a fork (the kernel probe) or the
// library's exit handler would wait for that worker: such a run neither probes nor exits
// through them, and the harness refuses it (exit 3, one line).
bool pool_refused() {
#if defined(GEMM_REF_OPENBLAS) && defined(__linux__)
    const gemm::AddressLimit limit = gemm::address_limit();
    return !limit.name.empty() && limit.bytes_left < library_bytes(1);
#else
    return false;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    Command cmd = split_command(argc, argv);
    // GEMM_CACHES before the forced set is tried in a child, which would blame a malformed one on the set.
    const std::string twice = gemm::repeated_option(argc, argv);
    const std::string problem = twice.empty() ? gemm::environment_problem() : gemm::shown(twice) + ": given twice";
    if (!problem.empty() && !cmd.help) {
        std::fprintf(stderr, "%s: %s\n", GEMM_REF_NAME, problem.c_str());
        return gemm::kExitUsage;
    }
    const char* child_detected = std::getenv(kChildDetected);
    // The kernel set the user forces, as given (for the messages and the label).
    const char* user_env = child_detected == nullptr ? std::getenv(kEnvVar) : nullptr;
    const std::string user = user_env != nullptr ? gemm::shown(user_env) : "";
    const bool refused = !cmd.help && pool_refused();
    const bool choosing = child_detected == nullptr && !cmd.help && !refused;   // not the re-run, not --help
    if (user_env != nullptr && choosing)
        if (const int rc = take_forced(user_env, user); rc >= 0) return rc;

    const std::string running = kernel_set();
    const std::string detected = child_detected != nullptr ? child_detected : running;
    gemm::ref::Choice choice;
    if (choosing)
        choice = settle_kernels(running, user_env != nullptr ? user.c_str() : nullptr, cmd.as_detected, argv);
    else if (child_detected != nullptr && std::getenv(kChildReason) != nullptr)
        choice.reason = std::getenv(kChildReason);

    // "openblas 0.3.21 SkylakeX (detected: Prescott)"
    std::string label = library_version() + " " + running;
    if (detected != running && detected != "probe") label += " (detected: " + detected + ")";
    else if (user_env != nullptr) label += std::string(" (") + kEnvVar + "=" + user + ")";
    else if (cmd.as_detected) label += " (as detected)";

    static const std::string variant_name = label;
    static const gemm::Variant variants[] = {{variant_name, sgemm}};
    static const gemm::StepDef def{.variants = variants, .library_bytes = library_bytes};
    // Named like a step so the harness prints "ref_openblas", not "stepref_openblas".
    const gemm::Step step{0, GEMM_REF_NAME, sgemm, always, &def};
    const int argc_left = static_cast<int>(cmd.args.size());

    int rc = 0;
    if (cmd.report_only && !cmd.help) {
        // The rest is checked as a run would check it: --kernels --sizes abc is a usage error.
        const gemm::ParseResult parsed = gemm::parse_options(argc_left, cmd.args.data(), step);
        if (parsed.exit_code == gemm::kExitUsage) {
            std::fprintf(stderr, "%s\n", parsed.message.c_str());
            return gemm::kExitUsage;
        }
        std::printf("running %s\ndetected %s\nisa %s\nlibrary %s\nlabel %s\nwhy %s\n", running.c_str(),
                    detected.c_str(), gemm::ref::isa_of(kLibrary, running).c_str(), library_version().c_str(),
                    label.c_str(), choice.reason.c_str());
    } else {
        // The kernel set's line first, once the harness has checked the command line.
        const std::string preface = std::string(GEMM_REF_NAME) + ": " + label + ": " + choice.reason + "\n";
        const gemm::ThreadControl threads{set_threads, get_threads};
        rc = gemm::run_main(argc_left, cmd.args.data(), step, &threads, preface);
        if (cmd.help) print_help_tail();
    }
    // Once, after a run that worked (a failed one keeps its one line): a narrower set than the best.
    if (choice.forced_narrower && rc == 0) std::fprintf(stderr, "%s: %s\n", GEMM_REF_NAME, choice.reason.c_str());
    const int status = gemm::finish_stdout(GEMM_REF_NAME, rc);
#if defined(__linux__)
    if (refused) {
        std::fflush(stderr);
        _exit(status);
    }
#endif
    return status;
}
