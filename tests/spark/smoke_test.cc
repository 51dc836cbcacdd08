#include <catch2/catch.hpp>

#include "spark/app_state.h"

TEST_CASE("smoke") { CHECK(kje::spark::ParseAppState("Failed") == kje::spark::AppState::kFailed); }
