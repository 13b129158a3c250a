// bin/noise: a shared machine's disturbances on purpose, to try a run's robustness on a quiet
// one: `memory` streams a large buffer on one CPU (the shared L3 and memory bus busy), `share`
// takes a share of the measured CPU's time (a co-runner or hypervisor thread), each on and off
// in spells of random length, stopping after --seconds. --log prints each spell's start and end
// ("12.503 memory on"), so a test can say which samples a spell could have touched.
#include "meter_cli.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: noise [--mode memory|share|both] [--seconds S] [--on A-B] [--off A-B] [--load F]\n"
    "             [--mib N] [--memory-cpu N] [--share-cpu N] [--seed N] [--log]\n"
    "A noisy neighbour in spells, stopping by itself after --seconds (default 60):\n"
    "  memory  streams --mib MiB (default 256: past the L3) on --memory-cpu (default the first CPU)\n"
    "  share   takes a --load share of --share-cpu's time (default 0.33 of the last CPU, where\n"
    "          run_all.sh pins its one-thread runs): spin 2 ms, sleep, as a co-runner does\n"
    "  both    the two, each with spells of its own (default)\n"
    "Spells: on for A to B seconds (--on, default 2-30), then off for A to B (--off, default 2-30),\n"
    "each length drawn at random (--seed N repeats the same). --log prints each spell's start and\n"
    "end (seconds since start, the neighbour, on|off) on standard output.\n"
    "Exit status: 0 done (or stopped by SIGINT/SIGTERM), 2 usage error, 3 --mib more than is free.\n";

std::atomic<bool> stop{false};
std::mutex print_lock;
Clock::time_point start_time;
bool log_spells = false;

void on_signal(int) { stop = true; }

void say(const char* who, bool on) {
    if (!log_spells) return;
    std::lock_guard<std::mutex> lock(print_lock);
    const double since_start = std::chrono::duration<double>(Clock::now() - start_time).count();
    std::printf("%.3f %s %s\n", since_start, who, on ? "on" : "off");
    std::fflush(stdout);
}

struct Range {
    double lo, hi;   // seconds
};

// "2-30" or "5": seconds, each above 0 and at most an hour. A message quotes the whole value.
Range parse_range(const std::string& option, const std::string& value) {
    const auto dash = value.find('-', 1);   // past a leading sign, which parse_real refuses
    const std::string lo_text = value.substr(0, dash), hi_text = dash == std::string::npos ? lo_text : value.substr(dash + 1);
    Range r{};
    const std::string bad = gemm::quoted(option, value) + ": ";
    for (const auto& [text, out] : {std::pair{&lo_text, &r.lo}, std::pair{&hi_text, &r.hi}})
        if (!gemm::parse_real(option, *text, 0, 3600, *out, true).empty())
            throw gemm::UsageError(bad + "not seconds A-B or A, each above 0 and at most 3600");
    if (r.hi < r.lo) throw gemm::UsageError(bad + "the first number is above the second");
    return r;
}

// Why a buffer of `mib` MiB cannot be had, or "": over 90 % of the free memory (touching it all
// would wake the OOM killer), or past a limit on address space.
std::string memory_problem(int mib) {
    const double bytes = static_cast<double>(mib) * (1 << 20), gib = 1 << 30;
    char text[200];
    if (const unsigned long long avail = gemm::available_memory(); avail > 0 && bytes > 0.9 * static_cast<double>(avail)) {
        std::snprintf(text, sizeof text, "--mib %d: needs %.1f GiB, %.1f GiB is available", mib, bytes / gib,
                      static_cast<double>(avail) / gib);
        return text;
    }
    const gemm::AddressLimit limit = gemm::address_limit();
    if (!limit.name.empty() && bytes + 64.0 * (1 << 20) > static_cast<double>(limit.bytes_left)) {
        std::snprintf(text, sizeof text, "--mib %d: past %s, which leaves %.1f GiB", mib, limit.name.c_str(),
                      static_cast<double>(limit.bytes_left) / gib);
        return text;
    }
    return "";
}

struct Options {
    std::string mode = "both";
    double seconds = 60, load = 0.33;
    int mib = 256;
    Range on{2, 30}, off{2, 30};
    int memory_cpu = 0, share_cpu = 0;
    unsigned seed = std::random_device{}();
};

// Spells of `work` (called in slices of about 10 ms while on) and of rest on `cpu`, until `end`.
template <class Work>
void spells(const char* name, int cpu, unsigned seed, const Options& o, Clock::time_point end, Work work) {
    gemm::cpu::pin_current_thread(cpu);
    std::mt19937 random(seed);
    auto length = [&](Range r) {
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(std::uniform_real_distribution<double>(r.lo, r.hi)(random)));
    };
    while (!stop && Clock::now() < end) {
        const auto on_until = std::min(end, Clock::now() + length(o.on));
        say(name, true);
        while (!stop && Clock::now() < on_until) work();
        say(name, false);
        const auto off_until = std::min(end, Clock::now() + length(o.off));
        while (!stop && Clock::now() < off_until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// Throws gemm::UsageError; an option given twice is refused before (meter::parse_command).
Options parse(int argc, const char* const* argv) {
    Options o;
    const std::vector<int> cpus = gemm::cpu::allowed_cpus();
    o.memory_cpu = cpus.empty() ? 0 : cpus.front();
    o.share_cpu = cpus.empty() ? 0 : cpus.back();
    auto cpu_option = [&](const std::string& option, const std::string& value) {
        const int cpu = static_cast<int>(gemm::whole_option(option, value, 0, 1 << 20));
        if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) return cpu;
        throw gemm::UsageError(gemm::quoted(option, value) + ": not a CPU this process may use");
    };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&] { return gemm::option_value(argc, argv, i); };
        if (arg == "--log") {
            log_spells = true;
        } else if (arg == "--mode") {
            o.mode = value();
            if (o.mode != "memory" && o.mode != "share" && o.mode != "both")
                throw gemm::UsageError(gemm::quoted(arg, o.mode) + ": not memory, share or both");
        } else if (arg == "--seconds") {
            o.seconds = gemm::positive_option(arg, value(), 86400);
        } else if (arg == "--on" || arg == "--off") {
            (arg == "--on" ? o.on : o.off) = parse_range(arg, value());
        } else if (arg == "--load") {
            o.load = gemm::positive_option(arg, value(), 1);
        } else if (arg == "--mib") {
            o.mib = gemm::count_option(arg, value(), 65536);
        } else if (arg == "--memory-cpu" || arg == "--share-cpu") {
            (arg == "--memory-cpu" ? o.memory_cpu : o.share_cpu) = cpu_option(arg, value());
        } else if (arg == "--seed") {
            o.seed = static_cast<unsigned>(gemm::count_option(arg, value(), 2147483647));
        } else if (arg.rfind("--", 0) == 0) {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unknown option (see --help)");
        } else {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unexpected argument (see --help)");
        }
    }
    return o;
}

// Every cache line of the buffer read and written, in spells.
void memory_spells(const Options& o, std::vector<unsigned char>& buffer, Clock::time_point end) {
    const std::size_t count = buffer.size();
    volatile unsigned char sink = 0;
    std::size_t at = 0;
    spells("memory", o.memory_cpu, o.seed, o, end, [&] {
        const auto slice_end = Clock::now() + std::chrono::milliseconds(10);
        while (Clock::now() < slice_end)
            for (std::size_t i = 0; i < (1u << 20); i += 64, at = (at + 64) % count) buffer[at] += 1;
        sink = sink + buffer[at];
    });
}

// Spin 2 ms, then sleep so that spinning is `load` of the time, which whatever else runs there loses.
void share_spells(const Options& o, Clock::time_point end) {
    const auto spin = std::chrono::microseconds(2000);
    const auto rest = std::chrono::microseconds(static_cast<long>(2000 * (1 - o.load) / o.load));
    spells("share", o.share_cpu, o.seed ^ 0x9e3779b9u, o, end, [&] {
        for (const auto until = Clock::now() + spin; Clock::now() < until;) {
        }
        if (rest.count() > 0) std::this_thread::sleep_for(rest);
    });
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    Options o;
    if (const auto done = gemm::meter::parse_command("noise", kUsage, parse, argc, argv, o, std::cout, std::cerr))
        return gemm::finish_stdout("noise", *done);
    // Made here: a std::bad_alloc in its thread would std::terminate. Touched once, outside the spells.
    std::vector<unsigned char> buffer;
    if (o.mode != "share") {
        if (const std::string problem = memory_problem(o.mib); !problem.empty()) {
            std::fprintf(stderr, "noise: %s\n", problem.c_str());
            return 3;
        }
        try {
            buffer.assign(static_cast<std::size_t>(o.mib) << 20, 1);
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "noise: --mib %d: out of memory\n", o.mib);
            return 3;
        }
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    start_time = Clock::now();
    const auto end = start_time + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
    std::vector<std::thread> threads;
    if (o.mode != "share") threads.emplace_back([&] { memory_spells(o, buffer, end); });
    if (o.mode != "memory") threads.emplace_back([&] { share_spells(o, end); });
    for (auto& t : threads) t.join();
    return gemm::finish_stdout("noise", 0);
}
