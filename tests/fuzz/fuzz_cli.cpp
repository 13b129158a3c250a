// libFuzzer target: the command line every step and reference runner parses
// (common/src/cli.cpp), on arbitrary argument lists. The input is split at NUL bytes into
// arguments. Whatever they are, the parser must return one of its three answers, and each
// answer must keep its promise: a usage error is one line naming the program, and options it
// accepts are in their documented ranges. A crash, a sanitizer report or a broken promise
// stops the fuzzer with the input that did it.
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

void noop(int, int, int, const float*, int, const float*, int, float*, int) {}
int block = 0;
int get_block() { return block ? block : 64; }
void set_block(int v) { block = v; }

constexpr gemm::Variant variants[] = {{"plain", noop}, {"other", noop}};
constexpr gemm::Param params[] = {{"kc", "a block size", get_block, set_block}};
constexpr gemm::StepDef def{.variants = variants, .params = params, .parallel = true};
const gemm::Step step{42, "42_fuzz", noop, [] { return true; }, &def};

void require(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args{"fuzz"};
    std::string current;
    for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
        if (data[i] == 0) {
            args.push_back(current);
            current.clear();
        } else {
            current += static_cast<char>(data[i]);
        }
    }
    if (!current.empty()) args.push_back(current);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());

    const gemm::ParseResult r = gemm::parse_options(static_cast<int>(argv.size()), argv.data(), step);
    if (r.exit_code == gemm::kExitUsage) {
        require(r.message.rfind("fuzz: ", 0) == 0);
        require(r.message.find('\n') == std::string::npos);
    } else if (r.exit_code == gemm::kExitOk) {
        require(r.message.rfind("usage: ", 0) == 0);
    } else {
        require(r.exit_code == -1);
        const gemm::Options& o = r.options;
        require(!o.sizes.empty());
        for (int s : o.sizes) require(s >= 1 && s <= gemm::kMaxSize);
        require(o.reps >= 1 && o.reps <= 1000000);
        require(o.warmup >= 0 && o.warmup <= 1000000);
        require(o.threads == 0 || (o.threads >= 1 && o.threads <= 4 * gemm::cpu::cores()));
        require(o.kernel.empty() || step.find_variant(o.kernel) != nullptr);
        require(o.time_limit >= 0);
        for (const auto& [param, value] : o.params) require(param != nullptr && value >= 0 && value <= 65536);
    }
    return 0;
}
