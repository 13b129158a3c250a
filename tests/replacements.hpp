// Counts how often a file was put in place by a rename (inotify's IN_MOVED_TO): each is one
// replacement by gemm::OutputFile, whichever process made it. Lets a test bound how many
// times a results file was rewritten without timing anything.
#pragma once

#include <cerrno>
#include <cstddef>
#include <string>
#include <utility>

#include <sys/inotify.h>
#include <unistd.h>

class Replacements {
public:
    // Starts watching for `name` in `folder` (renames before this are not seen).
    Replacements(const std::string& folder, std::string name)
        : name_(std::move(name)), fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)),
          // IN_MOVED_FROM too, though not counted: the kernel merges identical events queued
          // back to back, and the temporary file's name, different each time, keeps them apart.
          watching_(fd_ >= 0 && ::inotify_add_watch(fd_, folder.c_str(), IN_MOVED_FROM | IN_MOVED_TO) >= 0) {}
    ~Replacements() {
        if (fd_ >= 0) ::close(fd_);
    }
    Replacements(const Replacements&) = delete;
    Replacements& operator=(const Replacements&) = delete;

    bool watching() const { return watching_; }

    // Renames onto the name since the watch started, or -1 when the kernel's queue overflowed
    // (more events than it keeps: far more than any bound a test sets).
    long count() {
        alignas(inotify_event) char buffer[1 << 16];
        for (;;) {
            const ssize_t n = ::read(fd_, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;   // EAGAIN: nothing more queued
            for (ssize_t at = 0; at < n;) {
                const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
                if (event->mask & IN_Q_OVERFLOW) overflowed_ = true;
                if ((event->mask & IN_MOVED_TO) && event->len > 0 && name_ == event->name) ++count_;
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            }
        }
        return overflowed_ ? -1 : count_;
    }

private:
    std::string name_;
    int fd_;
    bool watching_;
    bool overflowed_ = false;
    long count_ = 0;
};
