// The one way the programs write a results file (--csv of the steps, the references and
// bin/peak). Contract: docs/contracts.md, "The CSV": nothing at the path is lost or replaced that was
// not ours to replace.
#pragma once

#include <cstddef>
#include <string>

namespace gemm {

// A results file, checked before any work is done, then written whole as often as needed:
//  - a regular file (or nothing yet) is replaced atomically: the contents go to a unique
//    temporary file in the same folder, which is then renamed over the path, so a reader or
//    an interrupted run sees the old or the new contents, never part of them, and two runs
//    writing the same path never mix. A failed write removes its temporary file and leaves
//    the old file as it was.
//  - a symbolic link is followed: its target is treated the same way and the link stays.
//  - anything else (a device such as /dev/null or /dev/stdout, a FIFO) is written through,
//    never replaced: it receives each part of the contents once, as they grow.
class OutputFile {
public:
    OutputFile() = default;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    // Checks that `path` can be written (its folder exists and takes a new file, or the device
    // opens) without changing what is there. Returns "" or the problem, naming the path.
    std::string open(const std::string& path);
    // The same check without keeping anything open: a device or FIFO is not even opened
    // (a FIFO would wait for its reader, then end what the reader gets), only its
    // permissions are looked at. For a program that checks a path now and writes it later.
    static std::string check(const std::string& path);

    // Makes the file hold `contents`. A device or FIFO gets only what goes beyond the
    // contents of the previous call (which must be their beginning). Returns "" or the problem.
    std::string write(const std::string& contents);

    // The same for contents that grow as a run goes (a row per size), which must survive an
    // interruption but would cost more to rewrite after every row than the run itself
    // (thousands of quick sizes): a device or FIFO gets the new part at once, as with write();
    // a regular file is replaced only when kGrowingInterval has passed since its previous
    // replacement (so a row that took longer than that is on disk as soon as it is done, and
    // an interruption loses at most the last interval's rows), or when `last` is set and it
    // does not hold `contents` yet. Call it with `last` when the run ends, early or not.
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

// Standard output after a program's last line: flushes it and returns `status`, or 3 with a
// line on stderr when anything written to it was lost (a full disk, `> /dev/full`), unless
// `status` already reports a failure.
int finish_stdout(const char* program, int status);
// The same check in the middle of a run: false (after the line on stderr) when output was lost.
bool stdout_ok(const char* program);

}  // namespace gemm
