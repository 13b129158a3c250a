// Pinning a thread and timing it by its own CPU time: what a meter needs on a shared machine,
// where the scheduler may move a thread between cores (and their caches) or take its core
// away for a while. Used by tools/bandwidth (and fit for tools/peak's copies of the same).
#pragma once

namespace gemm::cpu {

// Pins the calling thread to logical CPU `cpu` (a number from allowed_cpus()). Best effort:
// false (and the thread runs unpinned) where that is not possible.
bool pin_current_thread(int cpu);
// "" where threads are pinned (Linux); else one line saying they are not (macOS: the threads
// ask for the performance cores with a QoS class instead), for the tools to print.
const char* pinning_note();

// Seconds of CPU time the calling thread has used: time it was not running is not counted.
// Falls back to a monotonic wall clock where the OS has no per-thread clock.
double thread_cpu_seconds();

// Time this process's threads were ready to run but had no CPU: another program held their
// core (the kernel's run queue wait, /proc/self/task/*/schedstat), or the hypervisor did
// (steal time of the CPUs the process may use, /proc/stat). A timing taken while this is a
// large share of it measures the machine's other load, not the code.
struct CpuWait {
    double queued_seconds = 0;   // summed over the process's threads
    double stolen_seconds = 0;   // summed over the CPUs the process may use
    double wall_seconds = 0;     // a monotonic clock
    bool known = false;          // false where the OS does not say (not Linux, no schedstat)
};
CpuWait cpu_wait_now();
// The share of `threads` threads' time between two readings that went to waiting for a CPU,
// 0 to 1 (NaN when unknown).
double waited_share(const CpuWait& before, const CpuWait& after, int threads);

}  // namespace gemm::cpu
