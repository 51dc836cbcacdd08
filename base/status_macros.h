#pragma once

// Debian 12's Abseil (20220623) has no status_macros.h, so the two usual helpers live here.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KJE_CONCAT_INNER_(a, b) a##b
#define KJE_CONCAT_(a, b) KJE_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status kje_status_ = (expr);       \
    if (!kje_status_.ok()) return kje_status_; \
  } while (false)

// `ASSIGN_OR_RETURN(auto x, MaybeX());` unwraps a StatusOr or returns its error.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  KJE_ASSIGN_OR_RETURN_IMPL_(KJE_CONCAT_(kje_statusor_, __LINE__), lhs, rexpr)

#define KJE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr)   \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)
