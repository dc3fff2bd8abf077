// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The benchmarks' command line: each benchmark declares its flags, its options with a typed value and its positional
// arguments, and gets one usage text built from them and one kind of error. An argument nobody declared is an error
// rather than ignored, so that a misspelt option does not quietly run the full benchmark with the defaults.
//
//   bench::Options args("hacc_bench");
//   args.flag("--quick", quick, "a small run").option("--reps", "N", reps, "repetitions");
//   if (const auto done = args.parse(argc, argv)) return *done;  // after --help (0) or a usage error (2)
//
// Parse after Kokkos::initialize / ScopeGuard, which takes the --kokkos-* arguments it knows out of argv (it leaves
// --help, which then prints both its help and this usage).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace bench {

constexpr int kUsageError = 2;  // the exit status of a bad command line

// One value from its text; false unless the whole text is a value of that type.
inline bool from_text(const std::string& text, std::string& v) {
  v = text;
  return true;
}
inline bool from_text(const std::string& text, double& v) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0) return false;
  v = x;
  return true;
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
bool from_text(const std::string& text, T& v) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) return false;
  if constexpr (sizeof(T) < sizeof(long long))
    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) return false;
  v = static_cast<T>(x);
  return true;
}
// A comma-separated list (--n 32,64,128); it replaces the default list.
template <class T>
bool from_text(const std::string& text, std::vector<T>& v) {
  std::vector<T> items;
  for (std::size_t at = 0;;) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (!from_text(text.substr(at, comma - at), items.emplace_back())) return false;
    if (comma == text.size()) break;
    at = comma + 1;
  }
  v = std::move(items);
  return true;
}

// What a value must look like, for the error message.
inline const char* kind_of(const std::string&) { return "text"; }
inline const char* kind_of(const double&) { return "a number"; }
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
const char* kind_of(const T&) {
  return "an integer";
}
template <class T>
const char* kind_of(const std::vector<T>&) {
  return std::is_integral_v<T> ? "a comma-separated list of integers" : "a comma-separated list of numbers";
}

// A default as the usage shows it ("" shows none).
inline std::string to_text(const std::string& v) { return v; }
inline std::string to_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", v);
  return s;
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
std::string to_text(T v) {
  return std::to_string(v);
}
template <class T>
std::string to_text(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) {  // (appended in two steps: GCC 12's -Wrestrict misfires on "," + std::string in C++20)
    if (!s.empty()) s += ',';
    s += to_text(x);
  }
  return s;
}

class Options {
 public:
  explicit Options(std::string program) : program_(std::move(program)) {}

  // --name: sets `on`.
  Options& flag(const std::string& name, bool& on, const std::string& help) {
    const auto set = [&on] { on = true; };
    return flag(name, set, help);
  }
  // --name: runs `action` where it stands on the command line (--quick sets several values at once). In order with the
  // options, as the benchmarks' own loops did: --quick --reps 9 runs 9 repetitions, --reps 9 --quick those of --quick.
  Options& flag(const std::string& name, std::function<void()> action, const std::string& help) {
    Arg a{name, "", help, "", {}, "", false, nullptr};
    a.set = [action](const std::string&) { return action(), true; };
    options_.push_back(std::move(a));
    return *this;
  }
  // --name VALUE or --name=VALUE, read into `value` (std::string, int, std::int64_t, double, or a comma-separated
  // std::vector of them); the value it holds now is the default the usage shows. With `choices`, the value must be
  // one of them.
  template <class T>
  Options& option(const std::string& name, const std::string& meta, T& value, const std::string& help,
                  std::vector<std::string> choices = {}) {
    options_.push_back(make_arg(name, meta, value, help, std::move(choices)));
    return *this;
  }
  // The next positional argument; each is optional (the usage shows its default).
  template <class T>
  Options& positional(const std::string& name, T& value, const std::string& help,
                      std::vector<std::string> choices = {}) {
    positionals_.push_back(make_arg(name, "", value, help, std::move(choices)));
    return *this;
  }
  // Arguments that start with `prefix` are taken as they are into `into` (heat3d_kokkosddt accepts the original
  // program's Google Benchmark options, --benchmark_*).
  Options& pass_through(const std::string& prefix, std::vector<std::string>& into, const std::string& help) {
    pass_through_.push_back({prefix, &into, help});
    return *this;
  }

  // Reads argv[1] ... argv[argc - 1]. Returns the exit status if the program should stop there: 0 after --help (the
  // usage on stdout), kUsageError after a bad argument (what is wrong, then the usage, on stderr); nothing otherwise.
  // `print`: whether this process prints (under MPI every rank parses the same line; rank 0 alone need say so).
  std::optional<int> parse(int argc, char* argv[], bool print = true) {
    print_ = print;
    std::size_t next = 0;  // the next positional argument
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        if (print_) std::printf("%s", usage().c_str());
        return 0;
      }
      const auto through = std::find_if(pass_through_.begin(), pass_through_.end(),
                                        [&](const PassThrough& p) { return a.rfind(p.prefix, 0) == 0; });
      if (through != pass_through_.end()) {
        through->into->push_back(a);
      } else if (a.size() > 1 && a[0] == '-') {
        const std::size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const auto o = std::find_if(options_.begin(), options_.end(), [&](const Arg& x) { return x.name == name; });
        if (o == options_.end()) return error("unknown option " + a);
        if (!o->takes_value && eq != std::string::npos) return error(name + " takes no value");
        if (o->takes_value && eq == std::string::npos && i + 1 == argc)
          return error(name + " needs a value: " + name + " " + o->meta);
        const std::string value = !o->takes_value ? "" : eq != std::string::npos ? a.substr(eq + 1) : argv[++i];
        if (const auto status = read(*o, value)) return status;
      } else {
        if (next == positionals_.size()) return error("unexpected argument '" + a + "'");
        if (const auto status = read(positionals_[next++], a)) return status;
      }
    }
    return std::nullopt;
  }

  // A value that the benchmark itself rejects: the message and the usage, as parse() prints them; returns
  // kUsageError.
  int error(const std::string& message) const {
    if (print_) std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), message.c_str(), usage().c_str());
    return kUsageError;
  }

  std::string usage() const {
    std::string s = "usage: " + program_ + " [options]";
    for (const Arg& p : positionals_) s += " [" + p.name + "]";
    std::vector<std::pair<std::string, const Arg*>> rows;  // (left column, argument)
    for (const Arg& p : positionals_) rows.emplace_back(p.name, &p);
    for (const Arg& o : options_) rows.emplace_back(o.meta.empty() ? o.name : o.name + " " + o.meta, &o);
    std::size_t width = 6;  // --help
    for (const auto& r : rows) width = std::max(width, r.first.size());
    for (const PassThrough& p : pass_through_) width = std::max(width, p.prefix.size() + 1);
    auto row = [&](const std::string& left, const std::string& help) {
      s += "\n  " + left + std::string(width + 2 - left.size(), ' ') + help;
    };
    for (const auto& [left, arg] : rows) {
      std::string help = arg->help;
      if (!arg->choices.empty()) help += " (" + join(arg->choices, " | ") + ")";
      if (!arg->fallback.empty()) help += " [default " + arg->fallback + "]";
      row(left, help);
    }
    for (const PassThrough& p : pass_through_) row(p.prefix + "*", p.help);
    row("--help", "this text");
    return s + "\n";
  }

 private:
  struct Arg {
    std::string name, meta, help, fallback;
    std::vector<std::string> choices;
    std::string kind;  // what a value looks like ("an integer"), for the error message
    bool takes_value;
    std::function<bool(const std::string&)> set;  // false if the text is not a value
  };
  struct PassThrough {
    std::string prefix;
    std::vector<std::string>* into;
    std::string help;
  };

  template <class T>
  static Arg make_arg(const std::string& name, const std::string& meta, T& value, const std::string& help,
                      std::vector<std::string> choices) {
    Arg a{name, meta, help, to_text(value), std::move(choices), kind_of(value), true, nullptr};
    a.set = [&value](const std::string& text) { return from_text(text, value); };
    return a;
  }

  // Sets one argument from its text; the exit status if the text does not fit.
  std::optional<int> read(const Arg& arg, const std::string& text) const {
    if (!arg.choices.empty() && std::find(arg.choices.begin(), arg.choices.end(), text) == arg.choices.end())
      return error(arg.name + ": '" + text + "' is not one of " + join(arg.choices, ", "));
    if (!arg.set(text)) return error(arg.name + ": '" + text + "' is not " + arg.kind);
    return std::nullopt;
  }

  static std::string join(const std::vector<std::string>& v, const char* separator) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : separator) + x;
    return s;
  }

  std::string program_;
  std::vector<Arg> options_, positionals_;
  std::vector<PassThrough> pass_through_;
  bool print_ = true;
};

}  // namespace bench
