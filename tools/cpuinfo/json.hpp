// A small JSON writer for bin/cpuinfo --json: objects, arrays, strings (quote, backslash and
// every control character escaped), numbers and booleans, in order, with two-space indents. It
// checks only the commas: keys go in objects, bare values in arrays.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cpuinfo {

class Json {
public:
    Json& object(std::string_view key = {}) { return open(key, '{'); }   // key: inside an object
    Json& array(std::string_view key = {}) { return open(key, '['); }
    Json& end();   // closes the innermost
    Json& value(std::string_view key, std::string_view text) { return raw(key, quoted(text)); }
    Json& value(std::string_view key, long long number) { return raw(key, std::to_string(number)); }
    Json& real(std::string_view key, double number);   // null when not finite
    Json& flag(std::string_view key, bool yes) { return raw(key, yes ? "true" : "false"); }
    Json& null(std::string_view key) { return raw(key, "null"); }
    Json& element(std::string_view text) { return value({}, text); }   // a string in an array
    const std::string& text() const { return out_; }

    static std::string quoted(std::string_view text);

private:
    // `json` after the comma, the newline and indent, and "key": when given.
    Json& raw(std::string_view key, std::string_view json);
    Json& open(std::string_view key, char bracket);
    std::string out_;
    struct Open {
        char bracket;      // the one that closes it
        bool has_items;    // whether something is in it yet (a comma before the next)
    };
    std::vector<Open> open_;
};

}  // namespace cpuinfo
