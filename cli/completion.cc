#include "cli/completion.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"

namespace kje::cli {
namespace {

constexpr char kFunction[] = "_k8s_job_executor";

std::string FlagWords(const std::vector<FlagSpec>& flags) {
  std::vector<std::string> words;
  for (const FlagSpec& f : flags) {
    words.push_back(absl::StrCat("--", f.name));
    if (f.short_name != 0) words.push_back(std::string("-") + f.short_name);
  }
  return absl::StrJoin(words, " ");
}

std::string BashScript(const std::vector<CompletionCommand>& commands) {
  std::vector<std::string> top = {"serve", "version", "help"};
  std::vector<std::string> verbs;
  std::set<std::string> file_flags;
  std::string flag_cases;
  for (const CompletionCommand& c : commands) {
    const size_t space = c.name.find(' ');
    if (space == std::string::npos) {
      top.push_back(c.name);
    } else {
      if (std::find(top.begin(), top.end(), c.name.substr(0, space)) == top.end()) {
        top.push_back(c.name.substr(0, space));
      }
      verbs.push_back(c.name.substr(space + 1));
    }
    for (const FlagSpec& f : c.flags) {
      if (f.value_name != "FILE") continue;
      file_flags.insert(absl::StrCat("--", f.name));
      if (f.short_name != 0) file_flags.insert(std::string("-") + f.short_name);
    }
    absl::StrAppend(&flag_cases, "    \"", c.name, "\") words=\"", FlagWords(c.flags), "\" ;;\n");
  }
  std::string out = absl::StrCat(
      "# bash completion for k8s-job-executor: source it, or put it in\n"
      "# ~/.local/share/bash-completion/completions/k8s-job-executor\n",
      kFunction, "() {\n",
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  local words=\"\" cmd=\"${COMP_WORDS[1]}\"\n"
      "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
      "    COMPREPLY=($(compgen -W \"",
      absl::StrJoin(top, " "),
      "\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  if [[ $cmd == schedule ]]; then\n"
      "    if [[ $COMP_CWORD -eq 2 ]]; then\n"
      "      COMPREPLY=($(compgen -W \"",
      absl::StrJoin(verbs, " "),
      "\" -- \"$cur\"))\n"
      "      return\n"
      "    fi\n"
      "    cmd=\"schedule ${COMP_WORDS[2]}\"\n"
      "  fi\n"
      "  case \"$prev\" in\n"
      "    ",
      absl::StrJoin(file_flags, "|"),
      ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "    -o|--output) COMPREPLY=($(compgen -W \"table wide json yaml name\" -- \"$cur\")); "
      "return ;;\n"
      "    --context) COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" contexts 2>/dev/null | "
      "awk 'NR > 1 { print ($1 == \"*\") ? $2 : $1 }')\" -- \"$cur\")); return ;;\n"
      "    completion) COMPREPLY=($(compgen -W \"bash zsh\" -- \"$cur\")); return ;;\n"
      "  esac\n"
      "  case \"$cmd\" in\n",
      flag_cases,
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -F ",
      kFunction, " k8s-job-executor\n");
  return out;
}

}  // namespace

absl::StatusOr<std::string> CompletionScript(std::string_view shell,
                                             const std::vector<CompletionCommand>& commands) {
  if (shell == "bash") return BashScript(commands);
  if (shell == "zsh") {
    return absl::StrCat(
        "# zsh completion for k8s-job-executor: source it from ~/.zshrc (after compinit)\n"
        "autoload -U +X bashcompinit && bashcompinit\n",
        BashScript(commands));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("completion: the shell must be bash or zsh, got ", QuoteBounded(shell)));
}

}  // namespace kje::cli
