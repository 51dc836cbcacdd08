#include "spark/pod_memory.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

constexpr std::string_view kConfOverheadFactor = "spark.kubernetes.memoryOverheadFactor";

// A unit as a power of two of bytes.
std::optional<int> UnitShift(std::string_view unit) {
  struct Unit {
    std::string_view short_name;
    std::string_view long_name;
    int shift;
  };
  static constexpr Unit kUnits[] = {{"b", "b", 0},   {"k", "kb", 10}, {"m", "mb", 20},
                                    {"g", "gb", 30}, {"t", "tb", 40}, {"p", "pb", 50}};
  if (unit.empty()) return 20;  // memory confs count in MiB
  for (const Unit& u : kUnits) {
    if (unit == u.short_name || unit == u.long_name) return u.shift;
  }
  return std::nullopt;
}

std::string Key(SparkRole role, std::string_view suffix) {
  return absl::StrCat(role == SparkRole::kDriver ? "spark.driver." : "spark.executor.",
                      ToAbsl(suffix));
}

const ConfValue* Find(const MergedConf& conf, std::string_view key) {
  auto it = conf.find(std::string(key));
  return it == conf.end() ? nullptr : &it->second;
}

// The size under `key`, or `fallback` when it isn't set.
absl::StatusOr<int64_t> MemoryConf(const MergedConf& conf, std::string_view key, int64_t fallback) {
  const ConfValue* value = Find(conf, key);
  if (value == nullptr) return fallback;
  std::optional<int64_t> mib = ParseMemoryMib(value->value);
  if (!mib) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(key), " of ", value->source,
        " must be a whole size such as 512m or 4g (units b, k, m, g, t, p; MiB without one), not ",
        QuoteBounded(MaskValue(key, value->value))));
  }
  return *mib;
}

absl::StatusOr<std::optional<double>> FactorConf(const MergedConf& conf, std::string_view key) {
  const ConfValue* value = Find(conf, key);
  if (value == nullptr) return std::optional<double>();
  double factor = 0;
  if (!absl::SimpleAtod(ToAbsl(TrimmedText(value->value)), &factor) || !std::isfinite(factor) ||
      factor <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(key), " of ", value->source,
                                                   " must be a number above 0, not ",
                                                   QuoteBounded(MaskValue(key, value->value))));
  }
  return std::optional<double>(factor);
}

// The factor Spark gives the driver, which it also hands the executors.
absl::StatusOr<double> DriverFactor(const MergedConf& conf, bool non_jvm) {
  absl::StatusOr<std::optional<double>> own =
      FactorConf(conf, Key(SparkRole::kDriver, "memoryOverheadFactor"));
  if (!own.ok()) return own.status();
  if (*own) return **own;
  absl::StatusOr<std::optional<double>> shared = FactorConf(conf, kConfOverheadFactor);
  if (!shared.ok()) return shared.status();
  if (*shared) return **shared;
  return non_jvm ? kNonJvmOverheadFactor : kJvmOverheadFactor;
}

}  // namespace

std::optional<int64_t> ParseMemoryMib(std::string_view text) {
  const std::string lower = absl::AsciiStrToLower(ToAbsl(TrimmedText(text)));
  size_t digits = 0;
  while (digits < lower.size() && lower[digits] >= '0' && lower[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  std::optional<int> shift = UnitShift(std::string_view(lower).substr(digits));
  if (!shift) return std::nullopt;
  uint64_t number = 0;
  auto [end, error] = std::from_chars(lower.data(), lower.data() + digits, number);
  if (error != std::errc() || end != lower.data() + digits) return std::nullopt;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (*shift <= 20) return static_cast<int64_t>(number >> (20 - *shift));
  const int up = *shift - 20;
  if (number > (kMax >> up)) return std::nullopt;
  return static_cast<int64_t>(number << up);
}

absl::StatusOr<PodMemory> PodMemoryOf(const MergedConf& conf, SparkRole role, bool non_jvm) {
  PodMemory pod;
  absl::StatusOr<int64_t> memory = MemoryConf(conf, Key(role, "memory"), kDefaultMemoryMib);
  if (!memory.ok()) return memory.status();
  pod.memory_mib = *memory;
  absl::StatusOr<int64_t> explicit_overhead = MemoryConf(conf, Key(role, "memoryOverhead"), -1);
  if (!explicit_overhead.ok()) return explicit_overhead.status();
  if (*explicit_overhead >= 0) {
    pod.overhead_mib = *explicit_overhead;
    return pod;
  }
  absl::StatusOr<int64_t> minimum =
      MemoryConf(conf, Key(role, "minMemoryOverhead"), kMinOverheadMib);
  if (!minimum.ok()) return minimum.status();
  absl::StatusOr<double> factor = DriverFactor(conf, non_jvm);
  if (!factor.ok()) return factor.status();
  if (role == SparkRole::kExecutor) {
    absl::StatusOr<std::optional<double>> own = FactorConf(conf, Key(role, "memoryOverheadFactor"));
    if (!own.ok()) return own.status();
    if (*own) factor = **own;
  }
  // Spark truncates factor x memory to a whole MiB; a product past int64 is no pod anyone has.
  const double scaled = *factor * static_cast<double>(pod.memory_mib);
  const int64_t overhead =
      scaled >= 9.0e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(scaled);
  pod.overhead_mib = std::max(overhead, *minimum);
  return pod;
}

}  // namespace kje::spark
