// A small JSON writer for bin/cpuinfo --json: objects, arrays, strings (escaped: quote,
// backslash and every control character), whole numbers, reals and booleans, written in
// order to a string with two-space indents. It checks nothing the caller could get wrong
// beyond commas: keys go in objects, bare values in arrays (as the code below uses it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cpuinfo {

class Json {
public:
    Json& object(std::string_view key = {});   // opens {; key: inside an object
    Json& array(std::string_view key = {});    // opens [
    Json& end();                               // closes the innermost
    Json& value(std::string_view key, std::string_view text);
    Json& value(std::string_view key, const char* text) { return value(key, std::string_view(text)); }
    Json& value(std::string_view key, long long number);
    Json& value(std::string_view key, int number) { return value(key, static_cast<long long>(number)); }
    Json& real(std::string_view key, double number);   // null when not finite
    Json& flag(std::string_view key, bool yes);
    Json& null(std::string_view key);
    Json& element(std::string_view text);   // a string in an array
    const std::string& text() const { return out_; }

    static std::string quoted(std::string_view text);

private:
    void start(std::string_view key);   // the comma, the newline and indent, and "key": when given
    void open(std::string_view key, char bracket);
    std::string out_;
    struct Open {
        char bracket;      // the one that closes it
        bool has_items;    // whether something is in it yet (a comma before the next)
    };
    std::vector<Open> open_;
};

}  // namespace cpuinfo
