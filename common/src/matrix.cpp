#include <gemm/harness.hpp>

#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

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
    std::string key;
    unsigned long long kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024ULL;
    return 0;
}

}  // namespace gemm
