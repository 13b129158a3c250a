#include <gemm/harness.hpp>

#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include <sys/resource.h>

namespace gemm {

void AlignedDeleter::operator()(float* p) const noexcept { std::free(p); }

FloatBuffer allocate_floats(std::size_t count) {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t bytes = ((count * sizeof(float) + 63) / 64) * 64;
    void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return FloatBuffer(static_cast<float*>(p));
}

void fill_random(float* data, std::size_t count, unsigned long long seed) {
    // splitmix64: tiny, fast, and identical everywhere (std:: distributions are not).
    unsigned long long state = seed;
    for (std::size_t i = 0; i < count; ++i) {
        state += 0x9e3779b97f4a7c15ULL;
        unsigned long long z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        // 24 random bits -> a float in [-1, 1) with no rounding.
        data[i] = static_cast<float>(static_cast<long>(z >> 40) - (1L << 23)) * (1.0f / (1 << 23));
    }
}

unsigned long long available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    unsigned long long kib = 0;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024ULL;
    return 0;
}

namespace {

// A line of /proc/self/status in bytes ("VmSize:  1234 kB"), or 0.
unsigned long long status_bytes(const std::string& key) {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key + ":", 0) == 0) return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) * 1024ULL;
    return 0;
}

}  // namespace

AddressLimit address_limit() {
    AddressLimit best;
    const struct {
        int resource;
        const char* name;
        const char* mapped;   // what the limit counts, in /proc/self/status
    } limits[] = {{RLIMIT_AS, "RLIMIT_AS (ulimit -v)", "VmSize"}, {RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)", "VmData"}};
    for (const auto& l : limits) {
        rlimit r{};
        if (::getrlimit(l.resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
        const unsigned long long used = status_bytes(l.mapped);
        const unsigned long long left = r.rlim_cur > used ? r.rlim_cur - used : 0;
        if (best.name.empty() || left < best.bytes_left) best = {left, l.name};
    }
    return best;
}

unsigned long long thread_stack_bytes() {
    rlimit r{};
    if (::getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur > 0) return r.rlim_cur;
    return 8ULL << 20;
}

}  // namespace gemm
