// Pinning a thread and timing it by its own CPU time, for the meters on a shared machine
// (tools/bandwidth), where the scheduler may move a thread or take its core away for a while.
#pragma once

namespace gemm::cpu {

// Pins the calling thread to logical CPU `cpu` (from allowed_cpus()); false where it cannot.
bool pin_current_thread(int cpu);
// "" where threads are pinned (Linux); else one line saying they are not, for the tools to print.
const char* pinning_note();

// Seconds of CPU time the calling thread has used (a monotonic wall clock where there is none).
double thread_cpu_seconds();

// Time this process's threads were ready to run but had no CPU: another program held their core
// (the run queue wait, /proc/self/task/*/schedstat) or the hypervisor did (steal time, /proc/stat).
struct CpuWait {
    double queued_seconds = 0;   // summed over the process's threads
    double stolen_seconds = 0;   // summed over the CPUs the process may use
    double wall_seconds = 0;     // a monotonic clock
    bool known = false;          // false where the OS does not say (not Linux, no schedstat)
};
CpuWait cpu_wait_now();
// The share of `threads` threads' time between two readings spent waiting for a CPU, 0 to 1
// (NaN when unknown).
double waited_share(const CpuWait& before, const CpuWait& after, int threads);

}  // namespace gemm::cpu
