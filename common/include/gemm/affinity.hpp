// Pinning a thread and timing it by its own CPU time: what a meter needs on a shared machine,
// where the scheduler may move a thread between cores (and their caches) or take its core
// away for a while. Used by tools/bandwidth (and fit for tools/peak's copies of the same).
#pragma once

namespace gemm::cpu {

// Pins the calling thread to logical CPU `cpu` (a number from allowed_cpus()). Best effort:
// false (and the thread runs unpinned) where that is not possible.
bool pin_current_thread(int cpu);

// Seconds of CPU time the calling thread has used: time it was not running is not counted.
// Falls back to a monotonic wall clock where the OS has no per-thread clock.
double thread_cpu_seconds();

}  // namespace gemm::cpu
