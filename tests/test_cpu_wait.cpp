// The CPU-wait meter behind the CSV's cpu_wait column (gemm::cpu::waited_share): a timing
// taken while another thread shares the CPU must say so.
#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

void spin_for(double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile unsigned long sink = 0;
    while (std::chrono::steady_clock::now() < end) sink = sink + 1;
}

}  // namespace

TEST_CASE("cpu_wait: two busy threads on one CPU each wait about half the time", "[cpu-wait]") {
#if !defined(__linux__)
    SUCCEED("the OS does not report run-queue waits");
#else
    cpu_set_t all;   // given back at the end: later tests in this process use every CPU
    REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
    const int cpu = gemm::cpu::allowed_cpus().front();
    REQUIRE(gemm::cpu::pin_current_thread(cpu));
    std::atomic<bool> stop{false};
    std::thread rival([&] {
        gemm::cpu::pin_current_thread(cpu);
        volatile unsigned long sink = 0;
        while (!stop.load(std::memory_order_relaxed)) sink = sink + 1;
    });
    spin_for(0.02);   // the rival is running
    const gemm::cpu::CpuWait before = gemm::cpu::cpu_wait_now();
    spin_for(0.3);
    const gemm::cpu::CpuWait after = gemm::cpu::cpu_wait_now();
    stop = true;
    rival.join();
    sched_setaffinity(0, sizeof all, &all);
    REQUIRE(before.known);
    // Both threads of the process are counted, each waits about half: about 0.5 of 2 threads'
    // time; far above the 5 % that marks a timing as busy, whatever else the machine runs.
    const double share = gemm::cpu::waited_share(before, after, 2);
    CHECK(share > 0.25);
    CHECK(share <= 1.0);
#endif
}

TEST_CASE("cpu_wait: unknown readings give NaN, not a number", "[cpu-wait]") {
    gemm::cpu::CpuWait a, b;   // known = false
    b.wall_seconds = 1;
    CHECK(std::isnan(gemm::cpu::waited_share(a, b, 1)));
    gemm::cpu::CpuWait c = a, d = b;
    c.known = d.known = true;
    d.queued_seconds = 0.5;   // half of one second of one thread
    CHECK(gemm::cpu::waited_share(c, d, 1) == Approx(0.5));
    CHECK(gemm::cpu::waited_share(c, d, 2) == Approx(0.25));
    CHECK(std::isnan(gemm::cpu::waited_share(d, c, 1)));   // time went backwards: unknown
}
