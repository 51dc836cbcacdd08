#pragma once

// Masking of secret values in what the service shows: a Spark conf value or a job argument whose
// key's name looks sensitive is replaced by kMask in every answer, error, event message and log
// line, while the job itself gets the real value. A key is sensitive when its name, lower-cased
// with the separators `.`, `_` and `-` removed, contains one of the sensitive words (by default
// password, passwd, secret, token, credential, apikey, privatekey: an OAuth clientSecret or
// client_secret is caught by `secret`). The deployment may set its own words
// (server.sensitiveKeys); they are set once at start (SetSensitiveWords) and read by the places
// that mask.
//
// Every function is pure over its inputs, total on any bytes, and never makes text longer than
// the input plus kMask per masked value.

#include <string>
#include <string_view>
#include <vector>

namespace kje {

inline constexpr std::string_view kMask = "******";

// The sensitive words, normalised (lower case, no separators, non-empty).
class SensitiveWords {
 public:
  // The default words above.
  SensitiveWords();
  // `words` normalised; blank ones ignored.
  explicit SensitiveWords(const std::vector<std::string>& words);

  // Whether the key's name contains a sensitive word. Leading dashes (`--password`) don't count.
  bool IsSensitive(std::string_view key) const;
  const std::vector<std::string>& words() const { return words_; }

 private:
  std::vector<std::string> words_;
};

// The default words, for documentation and the config's default.
const std::vector<std::string>& DefaultSensitiveWords();

// The deployment's words: the defaults until SetSensitiveWords is called (once, at start,
// before any request is served).
const SensitiveWords& ConfiguredSensitiveWords();
void SetSensitiveWords(const std::vector<std::string>& words);

// The value as shown: kMask when the key is sensitive (and the value non-empty), else the value.
std::string MaskValue(std::string_view key, std::string_view value, const SensitiveWords& words);
std::string MaskValue(std::string_view key, std::string_view value);

// Free text with the values of sensitive keys masked where they appear as `key=value` (a conf,
// a `--key=value` argument, a URL's query), `"key": value` (JSON: a string, number or boolean;
// an object or array is left to its own keys) or `--key value`. A bare value ends at whitespace
// or at one of `,;&"')]}`; a quoted one at its closing quote.
std::string MaskText(std::string_view text, const SensitiveWords& words);
std::string MaskText(std::string_view text);

// Job arguments as shown: each masked as MaskText does, and the argument after a lone
// sensitive `--key` (the `--key value` form) replaced by kMask.
std::vector<std::string> MaskArguments(const std::vector<std::string>& arguments,
                                       const SensitiveWords& words);

}  // namespace kje
