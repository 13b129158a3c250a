#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gemm {
namespace {

// The path through shown(): a newline in it cannot make the message two lines.
std::string problem(const std::string& path, const std::string& detail) {
    return "cannot write " + shown(path) + ": " + detail;
}

// A path where a chain of links reaches an open file descriptor (/dev/stdout is /proc/self/fd/1):
// that is written through, whatever it is.
bool descriptor_like(const std::string& path) {
    return path.starts_with("/proc/") || path.starts_with("/dev/fd/");
}

// Follows symbolic links to the file they name (which need not exist yet), up to a
// descriptor_like path. Sets `error` on a loop or an unreadable link.
std::string follow_links(const std::string& path, int& error) {
    namespace fs = std::filesystem;
    fs::path p = path;
    for (int hops = 0; hops < 40; ++hops) {
        const std::string text = p.string();
        struct stat st{};
        if (descriptor_like(text) || ::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return text;
        std::error_code ec;
        const fs::path next = fs::read_symlink(p, ec);
        if (ec) {
            error = ec.value();
            return text;
        }
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    error = ELOOP;
    return p.string();
}

// A new, empty file beside `target` that nobody else can have: "<folder>/.<name>.XXXXXX", the
// name cut short where it would pass the folder's limit on one name (mkstemp keeps it unique).
int make_temporary(const std::string& target, std::string& name) {
    const std::filesystem::path parent = std::filesystem::path(target).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    std::string base = std::filesystem::path(target).filename().string();
    long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    if (limit <= 0) limit = 255;
    const std::size_t room = static_cast<std::size_t>(std::max(limit - 8, 1L));   // the '.' and ".XXXXXX"
    if (base.size() > room) base.resize(room);
    name = folder + "/." + base + ".XXXXXX";
    return ::mkstemp(name.data());
}

mode_t creation_mode() {
    static const mode_t mode = [] {
        const mode_t mask = ::umask(022);
        ::umask(mask);
        return static_cast<mode_t>(0666 & ~mask);
    }();
    return mode;
}

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// What a writer of `path` deals with, after its symbolic links.
enum class Kind { file, stream, descriptor };   // regular or none yet; device or FIFO; /dev/stdout
struct Target {
    std::string name;
    Kind kind = Kind::file;
    int fd = -1;   // Kind::descriptor: ours, e.g. 1 for /dev/stdout
};

// Sets `target`; returns "" or the problem (a folder, a loop of links, a non-writable descriptor).
std::string resolve(const std::string& path, Target& target) {
    if (path.empty()) return "cannot write '': the path is empty";
    int error = 0;
    target.name = follow_links(path, error);
    if (error != 0) return problem(path, std::strerror(error));
    if (descriptor_like(target.name)) {
        target.kind = Kind::stream;
        const std::size_t slash = target.name.rfind('/') + 1;
        const std::string folder = target.name.substr(0, slash), number = target.name.substr(slash);
        if ((folder != "/proc/self/fd/" && folder != "/dev/fd/") || number.empty() ||
            number.find_first_not_of("0123456789") != std::string::npos)
            return "";
        target.kind = Kind::descriptor;
        target.fd = std::atoi(number.c_str());
        const int flags = ::fcntl(target.fd, F_GETFL);
        if (flags < 0) return problem(path, std::strerror(errno));
        return (flags & O_ACCMODE) == O_RDONLY ? problem(path, "it is open for reading only") : "";
    }
    struct stat st{};
    if (::stat(target.name.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return problem(path, "it is a folder");
        target.kind = S_ISREG(st.st_mode) ? Kind::file : Kind::stream;
    } else if (errno != ENOENT) {
        return problem(path, std::strerror(errno));
    }
    return "";
}

// A regular file's (or a new file's) folder must take the temporary file.
std::string folder_takes_files(const std::string& path, const std::string& target) {
    std::string probe;
    const int fd = make_temporary(target, probe);
    if (fd < 0) return problem(path, std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

}  // namespace

OutputFile::~OutputFile() {
    if (stream_fd_ >= 0) ::close(stream_fd_);
}

std::string OutputFile::check(const std::string& path) {
    Target target;
    if (std::string error = resolve(path, target); !error.empty()) return error;
    if (target.kind == Kind::descriptor) return "";
    if (target.kind == Kind::stream)   // not opened: a FIFO would wait for its reader
        return ::access(target.name.c_str(), W_OK) == 0 ? "" : problem(path, std::strerror(errno));
    return folder_takes_files(path, target.name);
}

std::string OutputFile::open(const std::string& path) {
    path_ = path;
    Target target;
    if (std::string error = resolve(path, target); !error.empty()) return error;
    target_ = target.name;
    if (target.kind == Kind::file) return folder_takes_files(path, target_);
    // Our own descriptor (/dev/stdout) is duplicated, sharing its offset; a device or FIFO is opened
    // for appending: either way the CSV lands after what the program printed, not over it.
    stream_fd_ = target.kind == Kind::descriptor
                     ? ::fcntl(target.fd, F_DUPFD_CLOEXEC, 0)
                     : ::open(target_.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    return stream_fd_ < 0 ? problem(path, std::strerror(errno)) : "";
}

std::string OutputFile::write(const std::string& contents) {
    if (path_.empty()) return "OutputFile::write before open";
    if (stream_fd_ >= 0) {
        std::fflush(stdout);   // what the program printed before comes first on a shared terminal or file
        const std::size_t from = streamed_ < contents.size() ? streamed_ : contents.size();
        if (!write_all(stream_fd_, contents.data() + from, contents.size() - from))
            return problem(path_, std::strerror(errno));
        streamed_ = contents.size();
        return "";
    }
    std::string temporary;
    const int fd = make_temporary(target_, temporary);
    if (fd < 0) return problem(path_, std::strerror(errno));
    // The new file gets the old one's permissions, or those a plain create would give.
    struct stat st{};
    const mode_t mode = ::stat(target_.c_str(), &st) == 0 ? (st.st_mode & 07777) : creation_mode();
    bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, contents.data(), contents.size());
    int error = ok ? 0 : errno;
    if (::close(fd) != 0 && ok) {   // a full disk may show only here
        ok = false;
        error = errno;
    }
    if (ok && ::rename(temporary.c_str(), target_.c_str()) == 0) return "";
    if (ok) error = errno;   // the rename's
    ::unlink(temporary.c_str());
    return problem(path_, std::strerror(error));
}

std::string OutputFile::write_growing(const std::string& contents, bool last) {
    if (stream_fd_ >= 0) return write(contents);
    if (contents.size() == replaced_) return "";   // already in place
    const auto now = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    if (!last && replaced_ != std::string::npos && now() - replaced_at_ < kGrowingInterval) return "";
    if (std::string error = write(contents); !error.empty()) return error;
    replaced_ = contents.size();
    replaced_at_ = now();   // after the write: a slow disk cannot take the whole interval
    return "";
}

bool stdout_ok(const char* program) {
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    if (flushed && !std::ferror(stdout)) return true;
    std::fprintf(stderr, "%s: cannot write to standard output: %s\n", program,
                 !flushed && errno != 0 ? std::strerror(errno) : "an earlier write failed");
    return false;
}

int finish_stdout(const char* program, int status) {
    if (stdout_ok(program)) return status;
    return status != 0 ? status : 3;   // 3: output could not be written (SPEC exit codes)
}

}  // namespace gemm
