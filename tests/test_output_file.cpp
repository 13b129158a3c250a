// The results-file writer (common/src/output_file.cpp) under abuse: what is at the path is
// replaced only when it is a regular file, never half-written, never mixed by two writers,
// and a failed write leaves the old file and no temporary behind.
#include "replacements.hpp"
#include "scratch.hpp"

#include <gemm/output_file.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using gemm::test::scratch_folder;   // a fresh folder per test case, of this test process's own

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Files in `dir` other than those named.
std::vector<std::string> others(const fs::path& dir, const std::vector<std::string>& expected) {
    std::vector<std::string> extra;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (std::find(expected.begin(), expected.end(), name) == expected.end()) extra.push_back(name);
    }
    return extra;
}

std::string write_once(const std::string& path, const std::string& contents) {
    gemm::OutputFile file;
    if (std::string error = file.open(path); !error.empty()) return error;
    return file.write(contents);
}

}  // namespace

TEST_CASE("output: a regular file is replaced whole - keeps its mode - leaves no temporary", "[output]") {
    const fs::path dir = scratch_folder("regular");
    const std::string path = (dir / "res.csv").string();
    CHECK(write_once(path, "first\n") == "");
    CHECK(slurp(path) == "first\n");
    ::chmod(path.c_str(), 0640);
    gemm::OutputFile file;
    REQUIRE(file.open(path) == "");
    CHECK(file.write("a\n") == "");
    CHECK(file.write("a\nb\n") == "");   // rewritten as it grows: the whole file each time
    CHECK(slurp(path) == "a\nb\n");
    struct stat st{};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    CHECK(others(dir, {"res.csv"}).empty());
}

TEST_CASE("output: a symbolic link stays a link and its target gets the contents", "[output]") {
    const fs::path dir = scratch_folder("symlink");
    std::ofstream(dir / "target.csv") << "old\n";
    fs::create_symlink("target.csv", dir / "link.csv");
    fs::create_symlink(dir / "new_target.csv", dir / "dangling.csv");
    CHECK(write_once((dir / "link.csv").string(), "new\n") == "");
    CHECK(fs::is_symlink(dir / "link.csv"));
    CHECK(slurp(dir / "target.csv") == "new\n");
    CHECK(write_once((dir / "dangling.csv").string(), "made\n") == "");
    CHECK(fs::is_symlink(dir / "dangling.csv"));
    CHECK(slurp(dir / "new_target.csv") == "made\n");
    CHECK(others(dir, {"target.csv", "link.csv", "dangling.csv", "new_target.csv"}).empty());
}

TEST_CASE("output: a FIFO is written through - each part once - and stays a FIFO", "[output]") {
    const fs::path dir = scratch_folder("fifo");
    const std::string path = (dir / "pipe").string();
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] { received = slurp(path); });
    {
        gemm::OutputFile file;
        REQUIRE(file.open(path) == "");   // waits for the reader
        CHECK(file.write("header\nrow 1\n") == "");
        CHECK(file.write("header\nrow 1\nrow 2\n") == "");
    }
    reader.join();
    CHECK(received == "header\nrow 1\nrow 2\n");
    struct stat st{};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("output: /dev/null takes anything and stays a device - /dev/full is an error", "[output]") {
    CHECK(write_once("/dev/null", "x\n") == "");
    struct stat st{};
    REQUIRE(::lstat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    if (::access("/dev/full", W_OK) == 0) {
        const std::string error = write_once("/dev/full", "x\n");
        CHECK(error.find("/dev/full") != std::string::npos);
        CHECK(::lstat("/dev/full", &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
    }
}

TEST_CASE("output: a path that cannot be written is refused at open - nothing is created", "[output]") {
    const fs::path dir = scratch_folder("refused");
    gemm::OutputFile missing;
    CHECK(missing.open((dir / "no" / "x.csv").string()).find("no/x.csv") != std::string::npos);
    gemm::OutputFile folder;
    CHECK(folder.open(dir.string()).find("folder") != std::string::npos);
    gemm::OutputFile fine;
    CHECK(fine.open((dir / "later.csv").string()) == "");
    CHECK(others(dir, {}).empty());   // open() checks, it does not create
}

TEST_CASE("output: two writers of the same path never leave a mixed or partial file", "[output]") {
    const fs::path dir = scratch_folder("race");
    const std::string path = (dir / "res.csv").string();
    // Two contents of different lengths: a mix or a cut of them is neither.
    const std::string a(400000, 'a'), b(700000, 'b');
    std::atomic<int> failures{0};
    auto writer = [&](const std::string& text) {
        for (int i = 0; i < 100; ++i)
            if (!write_once(path, text).empty()) ++failures;
    };
    std::atomic<bool> done{false};
    std::atomic<int> bad_reads{0};
    std::thread reader([&] {
        while (!done) {
            const std::string seen = slurp(path);
            if (!seen.empty() && seen != a && seen != b) ++bad_reads;
        }
    });
    std::thread t1(writer, a), t2(writer, b);
    t1.join();
    t2.join();
    done = true;
    reader.join();
    CHECK(failures == 0);
    CHECK(bad_reads == 0);
    const std::string final_text = slurp(path);
    CHECK((final_text == a || final_text == b));
    CHECK(others(dir, {"res.csv"}).empty());
}

TEST_CASE("output: a write that fails (disk full) keeps the old file and removes its temporary", "[output]") {
    const fs::path dir = scratch_folder("full");
    const std::string path = (dir / "res.csv").string();
    REQUIRE(write_once(path, "old contents\n") == "");
    // A file size limit makes write() fail as a full disk does (EFBIG instead of ENOSPC).
    rlimit saved{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 4096;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    gemm::OutputFile file;
    const std::string opened = file.open(path);
    const std::string error = file.write(std::string(100000, 'x'));
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    CHECK(opened == "");
    CHECK(error.find(path) != std::string::npos);
    CHECK(slurp(path) == "old contents\n");
    CHECK(others(dir, {"res.csv"}).empty());
}

TEST_CASE("output: check() refuses what open() refuses - and opens nothing, not even a FIFO", "[output]") {
    const fs::path dir = scratch_folder("check");
    CHECK(gemm::OutputFile::check((dir / "no" / "x.csv").string()).find("no/x.csv") != std::string::npos);
    CHECK(gemm::OutputFile::check(dir.string()).find("folder") != std::string::npos);
    fs::create_symlink(dir / "no" / "y.csv", dir / "dangling.csv");   // into a folder that is not there
    CHECK(gemm::OutputFile::check((dir / "dangling.csv").string()).find("dangling.csv") != std::string::npos);
    CHECK(gemm::OutputFile::check((dir / "later.csv").string()) == "");
    CHECK(gemm::OutputFile::check("/dev/null") == "");
    CHECK(gemm::OutputFile::check("/dev/stdout") == "");
    // A FIFO without a reader: opening it to write would wait for one (and then end its input).
    const std::string fifo = (dir / "pipe").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto checked = std::async(std::launch::async, [&] { return gemm::OutputFile::check(fifo); });
    const bool returned = checked.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    if (!returned) ::close(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));   // lets a waiting open() go on
    CHECK(returned);
    CHECK(checked.get() == "");
    CHECK(others(dir, {"dangling.csv", "pipe"}).empty());   // nothing created
}

TEST_CASE("output: write_growing replaces a file at most once an interval - a slow row at once, all at the end",
          "[output]") {
    const fs::path dir = scratch_folder("growing");
    const std::string path = (dir / "res.csv").string();
    Replacements replaced(dir.string(), "res.csv");
    REQUIRE(replaced.watching());
    gemm::OutputFile file;
    REQUIRE(file.open(path) == "");
    std::string contents = "header\n";
    const auto start = std::chrono::steady_clock::now();
    for (int row = 0; row < 2000; ++row) {
        contents += "row " + std::to_string(row) + '\n';
        REQUIRE(file.write_growing(contents) == "");
        if (row == 0) CHECK(slurp(path) == contents);   // the first row at once
    }
    // A row after a pause longer than the interval (a slow size) is put in place at once.
    std::this_thread::sleep_for(std::chrono::duration<double>(gemm::OutputFile::kGrowingInterval + 0.05));
    contents += "slow row\n";
    REQUIRE(file.write_growing(contents) == "");
    CHECK(slurp(path) == contents);
    contents += "last row\n";
    REQUIRE(file.write_growing(contents, true) == "");
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(slurp(path) == contents);
    const long count = replaced.count();
    INFO(count << " replacements in " << elapsed << " s");
    CHECK(count >= 3);
    // The first, the slow row, the last, and one per interval at most in between.
    CHECK(count <= 3 + static_cast<long>(elapsed / gemm::OutputFile::kGrowingInterval));
    REQUIRE(file.write_growing(contents, true) == "");   // already in place: not again
    CHECK(replaced.count() == count);
    CHECK(others(dir, {"res.csv"}).empty());
}

TEST_CASE("output: write_growing gives a FIFO each part once", "[output]") {
    const fs::path dir = scratch_folder("growing_fifo");
    const std::string path = (dir / "pipe").string();
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] { received = slurp(path); });
    {
        gemm::OutputFile file;
        REQUIRE(file.open(path) == "");
        CHECK(file.write_growing("header\nrow 1\n") == "");
        CHECK(file.write_growing("header\nrow 1\nrow 2\n") == "");
        CHECK(file.write_growing("header\nrow 1\nrow 2\n", true) == "");
    }
    reader.join();
    CHECK(received == "header\nrow 1\nrow 2\n");
}

// Any legal name is written: the temporary beside it, ".NAME.XXXXXX", would pass the limit on
// one name (255 bytes) for a NAME of 248 bytes or more, so NAME is cut short there.
TEST_CASE("output: a name near the limit on one name is written - its temporary cut short, unique", "[output]") {
    const fs::path dir = scratch_folder("long_name");
    for (const std::size_t length : {240, 248, 250, 255}) {
        const std::string name = std::string(length - 4, 'x') + ".csv";
        const std::string path = (dir / name).string();
        INFO("a name of " << length << " bytes");
        CHECK(gemm::OutputFile::check(path) == "");
        CHECK(write_once(path, "a\n") == "");
        CHECK(write_once(path, "b\n") == "");
        CHECK(slurp(path) == "b\n");
        CHECK(others(dir, {name}).empty());
        fs::remove(path);
    }
    // Two names alike in their first 240 bytes: each writer still has a temporary of its own.
    const std::string a = (dir / (std::string(250, 'y') + "a")).string(), b = (dir / (std::string(250, 'y') + "b")).string();
    gemm::OutputFile fa, fb;
    REQUIRE(fa.open(a) == "");
    REQUIRE(fb.open(b) == "");
    CHECK(fa.write("A") == "");
    CHECK(fb.write("B") == "");
    CHECK(slurp(a) == "A");
    CHECK(slurp(b) == "B");
}
