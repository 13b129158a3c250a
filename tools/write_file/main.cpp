// bin/write_file: the shell scripts' writes through the programs' CSV writer (gemm::OutputFile,
// docs/contracts.md "The CSV"): `cmd | write_file out.csv` replaces a file atomically and on
// failure leaves the old one as it was, where `cmd > out.csv` would have emptied it first.
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kExitUsage = 2, kExitCannotWrite = 3;

const char* const kUsage =
    "usage: write_file PATH           writes standard input to PATH\n"
    "       write_file --check PATH   checks that PATH can be written, changes nothing\n"
    "A regular file is replaced atomically (a symbolic link's target, the link stays), a device or\n"
    "FIFO is written through; a failed write leaves the old file as it was.\n"
    "Exit status: 0, 2 usage error, 3 PATH cannot be written.\n";

bool read_all(int fd, std::string& data) {
    char buffer[1 << 16];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
        if (n > 0) data.append(buffer, static_cast<std::size_t>(n));
        else if (errno != EINTR) return false;
    }
    return true;
}

// The exit code after a check or write that gave `error` ("": none).
int written(const std::string& error) {
    if (error.empty()) return 0;
    std::fprintf(stderr, "write_file: %s\n", error.c_str());
    return kExitCannotWrite;
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // a closed standard input is then unreadable, not empty
    std::vector<std::string_view> args(argv + 1, argv + argc);
    // --help (or -h) anywhere before "--" wins, as in every program; after "--" it is a file's name.
    const auto dash_dash = std::find(args.begin(), args.end(), "--");
    if (std::find(args.begin(), dash_dash, "--help") != dash_dash || std::find(args.begin(), dash_dash, "-h") != dash_dash) {
        std::fputs(kUsage, stdout);
        return gemm::finish_stdout("write_file", 0);
    }
    if (const std::string problem = gemm::environment_problem(); !problem.empty()) {
        std::fprintf(stderr, "write_file: %s\n", problem.c_str());
        return kExitUsage;
    }
    const bool check_only = !args.empty() && args[0] == "--check";
    if (check_only) args.erase(args.begin());
    // "--" ends the options, for a file whose name begins with a dash.
    const bool dashes = !args.empty() && args[0] == "--";
    if (dashes) args.erase(args.begin());
    std::string problem;
    if (args.empty())
        problem = "name the file to write";
    else if (args.size() > 1)
        problem = "expected PATH or --check PATH";
    else if (args[0].empty())
        problem = "the path is empty";
    else if (args[0][0] == '-' && !dashes)
        problem = gemm::quoted("", args[0]) + ": unknown option (a file whose name begins with '-' goes after --)";
    if (!problem.empty()) {
        std::fprintf(stderr, "write_file: %s (see --help)\n", problem.c_str());
        return kExitUsage;
    }
    const std::string path(args[0]);
    if (check_only) return written(gemm::OutputFile::check(path));
    // Checked before standard input is read: a producer of hours of output learns at once.
    gemm::OutputFile file;
    if (const std::string error = file.open(path); !error.empty()) return written(error);
    std::string data;
    if (!read_all(STDIN_FILENO, data)) {
        std::fprintf(stderr, "write_file: cannot read standard input: %s; %s left as it was\n",
                     std::strerror(errno), gemm::shown(path).c_str());
        return kExitUsage;
    }
    return written(file.write(data));
}
