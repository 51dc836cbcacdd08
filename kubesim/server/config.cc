#include "kubesim/server/config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kubesim/server/tls.h"

namespace kubesim {
namespace {

bool ToInt(const std::string& text, int64_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    size_t e = item.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

std::string UsageText() {
  return "usage: kubesim [flags]\n"
         "  --listen HOST:PORT            address to serve HTTPS on (default 127.0.0.1:0)\n"
         "  --tls-cert FILE --tls-key FILE  serve this certificate instead of a generated one\n"
         "  --tls-ca FILE                 CA put in the kubeconfig with --tls-cert\n"
         "  --write-ca FILE               write the CA certificate (PEM)\n"
         "  --token-file FILE             accepted bearer token (re-read when it changes);\n"
         "                                default: a random token, see the kubeconfig\n"
         "  --client-ca FILE              accept client certificates signed by this CA\n"
         "  --write-kubeconfig FILE       write a kubeconfig once listening\n"
         "  --kubeconfig-namespace NS     the kubeconfig context's namespace (default default)\n"
         "  --namespaces a,b              namespaces to create (default and kube-system always)\n"
         "  --crd-dir DIR                 load the CRDs of DIR/*.yaml (repeatable)\n"
         "  --operator-namespaces a,b     namespaces the Spark operator watches (default\n"
         "                                default; empty: no operator)\n"
         "  --time-scale N                run the operator's clock N times faster\n"
         "  --operator-version V|NS=V     the operator release simulated: 0.9, 1.0 (default) or\n"
         "                                1.1, for every namespace or one (repeatable)\n"
         "  --crd-overlay F               apply the CRD overlay F to the loaded CRDs (repeatable;\n"
         "                                1.1 needs crds/apache-spark-operator/1.1.0-overlay)\n"
         "  --kubeflow-namespaces a,b     namespaces the Kubeflow Spark operator (v2.5.2,\n"
         "                                sparkoperator.k8s.io) watches (default none; needs\n"
         "                                --crd-dir crds/kubeflow-spark-operator/v2.5.2)\n"
         "  --kubeflow-executor-owner app|driver-only  executor pods' owners: the driver and\n"
         "                                the app (v2.5.2, default) or the driver alone\n"
         "  --threads N                   HTTP threads (default 2)\n"
         "  --max-body-bytes N            request body limit (default 3 MiB)\n"
         "  --bookmark-interval-ms N      watch BOOKMARK cadence (default 2000)\n"
         "  --event-ttl-seconds N         Events go N s of operator time after their last\n"
         "                                write (the API server's --event-ttl; default 3600)\n"
         "  --seed NS:COUNT:STATE[:LOG_BYTES]  write COUNT SparkApplications (Running or\n"
         "                                Succeeded) into NS before serving (repeatable)\n";
}

bool ParseFlags(const std::vector<std::string>& args, Flags* f, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (name == "-h" || name == "--help") {
      f->help = true;
      continue;
    }
    if (name.rfind("--", 0) != 0) {
      *error = "unexpected argument: " + name;
      return false;
    }
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    } else if (i + 1 < args.size()) {
      value = args[++i];
      has_value = true;
    }
    if (!has_value) {
      *error = "flag " + name + " needs a value";
      return false;
    }
    int64_t n = 0;
    if (name == "--listen") {
      f->listen = value;
    } else if (name == "--tls-cert") {
      f->tls_cert = value;
    } else if (name == "--tls-key") {
      f->tls_key = value;
    } else if (name == "--tls-ca") {
      f->tls_ca = value;
    } else if (name == "--write-ca") {
      f->write_ca = value;
    } else if (name == "--token-file") {
      f->token_file = value;
    } else if (name == "--client-ca") {
      f->client_ca = value;
    } else if (name == "--write-kubeconfig") {
      f->write_kubeconfig = value;
    } else if (name == "--kubeconfig-namespace") {
      f->kubeconfig_namespace = value;
    } else if (name == "--namespaces") {
      for (auto& ns : SplitList(value)) f->namespaces.push_back(ns);
    } else if (name == "--crd-dir") {
      f->crd_dirs.push_back(value);
    } else if (name == "--operator-namespaces") {
      f->operator_namespaces = SplitList(value);
    } else if (name == "--operator-version") {
      size_t eq = value.find('=');
      std::string version = eq == std::string::npos ? value : value.substr(eq + 1);
      if (version != "0.9" && version != "1.0" && version != "1.1") {
        *error = "--operator-version must be 0.9, 1.0 or 1.1, optionally as NAMESPACE=VERSION";
        return false;
      }
      if (eq == std::string::npos) {
        f->operator_version = version;
      } else {
        f->namespace_operator_versions[value.substr(0, eq)] = version;
      }
    } else if (name == "--kubeflow-namespaces") {
      f->kubeflow_namespaces = SplitList(value);
      f->kubeflow_namespaces_given = true;
    } else if (name == "--kubeflow-executor-owner") {
      if (value != "app" && value != "driver-only") {
        *error = "--kubeflow-executor-owner must be app or driver-only";
        return false;
      }
      f->kubeflow_executor_owner = value;
    } else if (name == "--crd-overlay") {
      f->crd_overlays.push_back(value);
    } else if (name == "--time-scale") {
      char* end = nullptr;
      f->time_scale = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(f->time_scale > 0)) {
        *error = "--time-scale must be a positive number";
        return false;
      }
    } else if (name == "--threads") {
      if (!ToInt(value, &n) || n < 1 || n > 64) {
        *error = "--threads must be 1..64";
        return false;
      }
      f->threads = static_cast<int>(n);
    } else if (name == "--max-body-bytes") {
      if (!ToInt(value, &n) || n < 1024) {
        *error = "--max-body-bytes must be at least 1024";
        return false;
      }
      f->max_body_bytes = n;
    } else if (name == "--bookmark-interval-ms") {
      if (!ToInt(value, &n) || n < 10) {
        *error = "--bookmark-interval-ms must be at least 10";
        return false;
      }
      f->bookmark_interval_ms = n;
    } else if (name == "--event-ttl-seconds") {
      if (!ToInt(value, &n) || n < 1) {
        *error = "--event-ttl-seconds must be a positive number of seconds";
        return false;
      }
      f->event_ttl_seconds = n;
    } else if (name == "--seed") {
      f->seeds.push_back(value);
    } else {
      *error = "unknown flag: " + name;
      return false;
    }
  }
  if (f->tls_cert.empty() != f->tls_key.empty()) {
    *error = "--tls-cert and --tls-key go together";
    return false;
  }
  return true;
}

bool SplitHostPort(const std::string& listen, std::string* host, uint16_t* port,
                   std::string* error) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    *error = "--listen must be HOST:PORT";
    return false;
  }
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  if (*host == "localhost") *host = "127.0.0.1";
  int64_t p = 0;
  if (!ToInt(listen.substr(colon + 1), &p) || p < 0 || p > 65535) {
    *error = "bad port in --listen " + listen;
    return false;
  }
  *port = static_cast<uint16_t>(p);
  return true;
}

std::string KubeconfigYaml(const std::string& server_url, const std::string& ca_pem,
                           const std::string& token, const std::string& ns) {
  // Every value is either base64, a URL, a DNS label or a token of printable characters, so
  // double-quoting them is enough YAML.
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "clusters:\n";
  out += "- name: kubesim\n";
  out += "  cluster:\n";
  out += "    server: \"" + server_url + "\"\n";
  out += "    certificate-authority-data: \"" + Base64Encode(ca_pem) + "\"\n";
  out += "users:\n";
  out += "- name: kubesim\n";
  out += "  user:\n";
  out += "    token: \"" + token + "\"\n";
  out += "contexts:\n";
  out += "- name: kubesim\n";
  out += "  context:\n";
  out += "    cluster: kubesim\n";
  out += "    user: kubesim\n";
  out += "    namespace: \"" + ns + "\"\n";
  out += "current-context: kubesim\n";
  out += "preferences: {}\n";
  return out;
}

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    *error = "cannot flush " + tmp + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool ReadFile(const std::string& path, std::string* content, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  *content = buf.str();
  return true;
}

}  // namespace kubesim
