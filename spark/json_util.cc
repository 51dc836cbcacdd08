#include "spark/json_util.h"

namespace kje::spark::json {

const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it == object.MemberEnd()) return nullptr;
  return &it->value;
}

const rapidjson::Value* Member(const rapidjson::Value* object, std::string_view key) {
  return object == nullptr ? nullptr : Member(*object, key);
}

std::optional<std::string_view> String(const rapidjson::Value* object, std::string_view key) {
  const rapidjson::Value* value = Member(object, key);
  if (value == nullptr || !value->IsString()) return std::nullopt;
  return View(*value);
}

std::optional<int64_t> Int(const rapidjson::Value* object, std::string_view key) {
  const rapidjson::Value* value = Member(object, key);
  if (value == nullptr || !value->IsInt64()) return std::nullopt;
  return value->GetInt64();
}

EpochMillis Time(const rapidjson::Value* object, std::string_view key) {
  std::optional<std::string_view> text = String(object, key);
  return text ? ParseRfc3339Millis(*text) : kNoTime;
}

}  // namespace kje::spark::json
