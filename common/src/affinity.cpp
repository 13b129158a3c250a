#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#elif defined(__APPLE__)
#include <pthread.h>
#include <pthread/qos.h>
#endif
#include <time.h>

namespace gemm::cpu {

#if defined(__linux__)
bool pin_current_thread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}
const char* pinning_note() { return ""; }
#elif defined(__APPLE__)
// macOS cannot pin a thread; user-interactive QoS sends it to the performance cores first.
// The program's first thread asks for it as the program starts, and every thread pinned.
namespace {
const bool main_thread_qos = pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0) == 0;
}  // namespace
bool pin_current_thread(int) {
    (void)main_thread_qos;
    pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0);
    return false;   // not pinned: the callers time by wall clock where a thread may have moved
}
const char* pinning_note() {
    return "threads are not pinned (macOS cannot pin): they ask for the performance cores with QoS user-interactive";
}
#else
bool pin_current_thread(int) { return false; }
const char* pinning_note() { return "threads are not pinned (no pinning call on this OS)"; }
#endif

namespace {

double wall_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#if defined(__linux__)
// Seconds every thread of this process spent on a run queue (schedstat's second field, in ns).
bool queued_seconds(double& total) {
    total = 0;
    bool any = false;
    namespace fs = std::filesystem;
    std::error_code ec;   // an error ends the walk (the range-for's ++ would throw instead)
    for (fs::directory_iterator task("/proc/self/task", ec), end; !ec && task != end; task.increment(ec)) {
        std::ifstream in(task->path() / "schedstat");
        unsigned long long on_cpu = 0, waiting = 0;
        if (in >> on_cpu >> waiting) total += 1e-9 * static_cast<double>(waiting), any = true;
    }
    return any;
}

// Steal time of the CPUs this process may use, in seconds (/proc/stat counts USER_HZ ticks).
double stolen_seconds() {
    std::ifstream stat("/proc/stat");
    const std::vector<int> mine = allowed_cpus();
    const double tick = 1.0 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
    double total = 0;
    for (std::string line; std::getline(stat, line);) {
        int cpu = -1;
        unsigned long long steal = 0;   // after user nice system idle iowait irq softirq
        if (std::sscanf(line.c_str(), "cpu%d %*s %*s %*s %*s %*s %*s %*s %llu", &cpu, &steal) < 1)
            continue;
        if (std::find(mine.begin(), mine.end(), cpu) != mine.end()) total += tick * static_cast<double>(steal);
    }
    return total;
}
#endif

}  // namespace

double thread_cpu_seconds() {
#if defined(__linux__) || defined(__APPLE__)
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#endif
    return wall_now();
}

CpuWait cpu_wait_now() {
    CpuWait w;
#if defined(__linux__)
    w.known = queued_seconds(w.queued_seconds);
    if (w.known) w.stolen_seconds = stolen_seconds();
#endif
    w.wall_seconds = wall_now();
    return w;
}

double waited_share(const CpuWait& before, const CpuWait& after, int threads) {
    const double wall = after.wall_seconds - before.wall_seconds;
    if (!before.known || !after.known || wall <= 0 || threads < 1) return std::numeric_limits<double>::quiet_NaN();
    // Steal is counted per CPU: a process on t of the c CPUs it may use loses about t/c of it.
    const double cpus = static_cast<double>(std::max<std::size_t>(1, allowed_cpus().size()));
    const double stolen = (after.stolen_seconds - before.stolen_seconds) * std::min(1.0, threads / cpus);
    const double waited = (after.queued_seconds - before.queued_seconds) + stolen;
    return std::clamp(waited / (wall * threads), 0.0, 1.0);
}

}  // namespace gemm::cpu
