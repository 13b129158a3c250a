// The one way the programs write a results file (--csv of the steps, the references and
// bin/peak). Contract: docs/contracts.md, "Writing files": a regular file is replaced
// atomically through a temporary beside it, a symbolic link followed, a device or FIFO
// written through; nothing at the path is lost that was not ours to replace.
#pragma once

#include <cstddef>
#include <string>

namespace gemm {

class OutputFile {
public:
    OutputFile() = default;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    // Checks that `path` can be written (its folder takes a new file, or the device opens)
    // without changing what is there. Returns "" or the problem, naming the path.
    std::string open(const std::string& path);
    // The same check, keeping nothing open, for a path written later: a device or FIFO is not
    // even opened (a FIFO would wait for its reader, then end what the reader gets).
    static std::string check(const std::string& path);

    // Makes the file hold `contents`; a device or FIFO gets only what goes beyond the previous
    // call's contents (which must be their beginning). Returns "" or the problem.
    std::string write(const std::string& contents);

    // The same for contents that grow as a run goes (a row per size), cheaper than a rewrite
    // after every row: a regular file is replaced only once kGrowingInterval has passed since
    // its last replacement, or when `last` is set (call it so when the run ends, early or not).
    static constexpr double kGrowingInterval = 0.5;   // seconds
    std::string write_growing(const std::string& contents, bool last = false);

private:
    std::string path_;          // as given, for messages
    std::string target_;        // after following symbolic links
    int stream_fd_ = -1;        // open while the target is not a regular file
    std::size_t streamed_ = 0;  // bytes of the contents already written to the stream
    std::size_t replaced_ = std::string::npos;   // write_growing: size of the contents last put in place
    double replaced_at_ = 0;    // write_growing: when (steady clock, seconds)
};

// Flushes standard output after a program's last line: `status`, or 3 with a line on stderr
// when anything written to it was lost (`> /dev/full`), unless `status` is already a failure.
int finish_stdout(const char* program, int status);
// The same check in the middle of a run: false (after the line on stderr) when output was lost.
bool stdout_ok(const char* program);

}  // namespace gemm
