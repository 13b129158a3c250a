// Scratch files of a test process: one folder of its own under the system's temporary folder,
// removed when the process ends, so that runs of the suite leave nothing behind.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace gemm::test {

// TMP/gemm_tests_PID, made on first use. Removed at exit by the process that made it only: a
// child forked by a test and ending with exit() must not remove its parent's files.
inline const std::filesystem::path& scratch_root() {
    struct Root {
        pid_t owner = getpid();
        std::filesystem::path path = std::filesystem::temp_directory_path() / ("gemm_tests_" + std::to_string(owner));
        Root() { std::filesystem::create_directories(path); }
        ~Root() {
            std::error_code ignored;
            if (getpid() == owner) std::filesystem::remove_all(path, ignored);
        }
    };
    static const Root root;
    return root.path;
}

// A file's path in the scratch folder.
inline std::string scratch(const std::string& name) { return (scratch_root() / name).string(); }

// An empty folder in the scratch folder (emptied if an earlier test case left it full).
inline std::filesystem::path scratch_folder(const std::string& name) {
    const auto dir = scratch_root() / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace gemm::test
