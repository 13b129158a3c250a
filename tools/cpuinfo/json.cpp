#include "json.hpp"

#include <cmath>
#include <cstdio>

namespace cpuinfo {

std::string Json::quoted(std::string_view text) {
    std::string s = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        char buf[8];
        if (c == '"' || c == '\\') {
            s += {'\\', ch};
        } else if (c == '\n') {
            s += "\\n";
        } else if (c == '\t') {
            s += "\\t";
        } else if (c < 0x20 || c == 0x7f) {   // the other control characters as \u00XX
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            s += buf;
        } else {
            s += ch;   // UTF-8 bytes pass as they are
        }
    }
    return s + '"';
}

Json& Json::raw(std::string_view key, std::string_view json) {
    if (!open_.empty()) {
        out_ += open_.back().has_items ? ",\n" : "\n";
        open_.back().has_items = true;
        out_.append(2 * open_.size(), ' ');
    }
    if (!key.empty()) out_ += quoted(key) + ": ";
    out_ += json;
    return *this;
}

Json& Json::open(std::string_view key, char bracket) {
    raw(key, std::string_view(&bracket, 1));
    open_.push_back({bracket == '{' ? '}' : ']', false});
    return *this;
}

Json& Json::end() {
    const Open closing = open_.back();
    open_.pop_back();
    if (closing.has_items) out_ += '\n' + std::string(2 * open_.size(), ' ');
    out_ += closing.bracket;
    if (open_.empty()) out_ += '\n';
    return *this;
}

Json& Json::real(std::string_view key, double number) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", number);
    return raw(key, std::isfinite(number) ? buf : "null");
}

}  // namespace cpuinfo
