// bin/write_file: what the shell scripts write goes through the same writer as the programs'
// CSVs (gemm::OutputFile, docs/contracts.md "The CSV"): `cmd | write_file out.csv` replaces a
// regular file atomically (a symbolic link's target; the link stays), writes a device or FIFO
// through, and on failure leaves the old file as it was, where `cmd > out.csv` would have
// emptied it first.
//
//   write_file PATH           standard input, all of it, to PATH
//   write_file --check PATH   only whether PATH can be written (nothing is created or opened)
//
// Exit: 0; 2 usage or standard input unreadable; 3 PATH cannot be written (one line naming it).
#include <gemm/output_file.hpp>

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
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) return true;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        data.append(buffer, static_cast<std::size_t>(n));
    }
}

int cannot_write(const std::string& error) {
    std::fprintf(stderr, "write_file: %s\n", error.c_str());
    return kExitCannotWrite;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kUsage, stdout);
        return gemm::finish_stdout("write_file", 0);
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
        problem.append("'").append(args[0]).append("': unknown option (a file whose name begins with '-' goes after --)");
    if (!problem.empty()) {
        std::fprintf(stderr, "write_file: %s (see --help)\n", problem.c_str());
        return kExitUsage;
    }
    const std::string path(args[0]);
    if (check_only) {
        const std::string error = gemm::OutputFile::check(path);
        return error.empty() ? 0 : cannot_write(error);
    }
    // The path is checked before standard input is read: a producer piping hours of output
    // into a path that cannot take it learns at once.
    gemm::OutputFile file;
    if (const std::string error = file.open(path); !error.empty()) return cannot_write(error);
    std::string data;
    if (!read_all(STDIN_FILENO, data)) {
        std::fprintf(stderr, "write_file: cannot read standard input: %s; %s left as it was\n",
                     std::strerror(errno), path.c_str());
        return kExitUsage;
    }
    const std::string error = file.write(data);
    return error.empty() ? 0 : cannot_write(error);
}
