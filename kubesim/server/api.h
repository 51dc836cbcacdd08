#pragma once

// kubesim's HTTP API, independent of the transport: routes a request onto the Store by the
// Kubernetes REST conventions (discovery, OpenAPI, resources, subresources, watch, logs), with
// authentication, Status errors, server-side Table printing, injected faults and statistics.

#include <atomic>
#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/rbac/rbac.h"
#include "kubesim/rbac/tokens.h"
#include "kubesim/schema/crd.h"
#include "kubesim/server/auth.h"
#include "kubesim/server/faults.h"
#include "kubesim/server/http_types.h"
#include "kubesim/server/url.h"
#include "kubesim/store/store.h"

namespace kubesim {

struct ApiOptions {
  std::string git_version = "v1.32.0";  // what /version reports (kubectl dispatchers read it)
  int64_t bookmark_interval_ms = 2000;  // BOOKMARK cadence of watches with allowWatchBookmarks
  int64_t default_watch_timeout_ms = 30 * 60 * 1000;  // when timeoutSeconds is absent
  // Request bodies beyond this get 413 (the API server's 3 MiB); the transport enforces the same
  // limit while reading, this checks whatever reaches the API another way.
  int64_t max_body_bytes = 3 * 1024 * 1024;
};

// One ResourceType per served version of a CRD; validators wrap the versions' schemas.
std::vector<ResourceType> CrdTypes(const Crd& crd);

// An ApiError as a Status object, and as a whole response.
boost::json::object StatusObject(const ApiError& error);
HttpResponse ErrorResponse(const ApiError& error);
ApiError MakeError(int code, std::string reason, std::string message);
// 413 for a request body over `limit` bytes, worded as the API server does.
ApiError RequestEntityTooLarge(int64_t limit);

// JSON with two-space indentation (for ?pretty=true).
std::string PrettyJson(const boost::json::value& value);

class Api {
 public:
  Api(Store& store, TokenFile& tokens, ApiOptions options, std::function<int64_t()> now_ms);

  // Registers the CRD's served versions with the store and serves the CRD itself.
  void AddCrd(const Crd& crd);

  // Handles one request. `notify` may be called from any thread, for as long as a stream
  // returned in the response lives, when the stream may have more to send.
  HttpResponse Handle(const HttpRequest& request, const std::function<void()>& notify);

  FaultTable& faults() { return faults_; }
  Stats& stats() { return stats_; }

 private:
  using Query = std::map<std::string, std::string>;

  HttpResponse Dispatch(const HttpRequest& request, std::string_view raw_path, const ApiPath& path,
                        const Query& query, const std::function<void()>& notify);
  HttpResponse HandleResource(const HttpRequest& request, const ApiPath& path, const Query& query,
                              const rbac::UserInfo& user, const std::function<void()>& notify);

  // Authentication: the admin token or a verified client certificate is the cluster's admin
  // (system:masters); a token issued by the TokenRequest API is its ServiceAccount.
  std::optional<rbac::UserInfo> Authenticate(const HttpRequest& request);
  // The attributes RBAC judges a resource request by.
  static rbac::Attributes ResourceAttributes(const HttpRequest& request, const ApiPath& path,
                                             const Query& query);
  // POST .../serviceaccounts/<name>/token: a TokenRequest, answered with a new token.
  HttpResponse HandleTokenRequest(const HttpRequest& request, const ApiPath& path,
                                  const ResourceType& type);
  HttpResponse HandleCrds(const HttpRequest& request, const ApiPath& path, const Query& query);
  HttpResponse HandleKubesim(const HttpRequest& request, const ApiPath& path);

  HttpResponse CoreVersions() const;
  HttpResponse GroupList() const;
  HttpResponse Group(const std::string& group) const;
  HttpResponse ResourceList(const std::string& group, const std::string& version) const;
  HttpResponse OpenApiV2(const HttpRequest& request) const;
  HttpResponse OpenApiV3Root() const;
  HttpResponse OpenApiV3Doc(const std::string& group, const std::string& version) const;

  // group -> versions, preferred first.
  std::map<std::string, std::vector<std::string>> GroupVersions() const;
  const boost::json::array* PrinterColumns(const ResourceType& type) const;

  Store& store_;
  TokenFile& tokens_;
  rbac::ServiceAccountTokens sa_tokens_;
  const ApiOptions options_;
  std::function<int64_t()> now_ms_;
  FaultTable faults_;
  Stats stats_;
  // Watches and followed logs alive now.
  std::shared_ptr<std::atomic<int64_t>> active_streams_ = std::make_shared<std::atomic<int64_t>>(0);

  mutable std::mutex crd_mu_;
  std::map<std::string, boost::json::object> crd_objects_;                            // by CRD name
  std::map<std::string, std::string> preferred_versions_;                             // by group
  std::map<std::string, std::shared_ptr<const boost::json::array>> printer_columns_;  // g/v/p
};

}  // namespace kubesim
