#include "server/config_schema.h"

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_split.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "server/config_keys.h"

namespace kje::server {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// The keys as a tree: a node with children is an object of the chart's values; one without is a
// key's value.
struct Node {
  std::map<std::string, std::unique_ptr<Node>> children;
  bool map_of_values = false;  // any keys, each a scalar (spark.conf)
};

void Key(Writer& w, const std::string& key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

// A key's value as the chart may write it: a scalar, or a list (allowedNamespaces); blank (null)
// leaves the default. The server judges the value itself.
void WriteLeaf(Writer& w) {
  w.StartObject();
  Key(w, "type");
  w.StartArray();
  for (const char* type : {"array", "boolean", "null", "number", "string"}) w.String(type);
  w.EndArray();
  w.EndObject();
}

void WriteNode(Writer& w, const Node& node, bool root = false) {
  if (node.children.empty() && !node.map_of_values) return WriteLeaf(w);
  w.StartObject();
  Key(w, "type");
  w.String("object");
  if (node.map_of_values) {
    Key(w, "additionalProperties");
    w.StartObject();
    Key(w, "type");
    w.StartArray();
    for (const char* type : {"boolean", "null", "number", "string"}) w.String(type);
    w.EndArray();
    w.EndObject();
  } else {
    Key(w, "additionalProperties");
    w.Bool(false);
    if (root) {
      // A dotted key ("spark.image") is left to the chart, whose refusal says to nest it.
      Key(w, "patternProperties");
      w.StartObject();
      Key(w, "\\.");
      w.StartObject();
      w.EndObject();
      w.EndObject();
    }
    Key(w, "properties");
    w.StartObject();
    for (const auto& [name, child] : node.children) {
      Key(w, name);
      WriteNode(w, *child);
    }
    w.EndObject();
  }
  w.EndObject();
}

Node* Child(Node& node, const std::string& name) {
  std::unique_ptr<Node>& child = node.children[name];
  if (child == nullptr) child = std::make_unique<Node>();
  return child.get();
}

}  // namespace

std::string ConfigValuesSchema() {
  Node root;
  for (const config_internal::ConfigSection& section : config_internal::ConfigSections()) {
    for (const config_internal::ConfigKey& key : section.keys) {
      Node* node = &root;
      for (absl::string_view part : absl::StrSplit(key.name, '.')) {
        node = Child(*node, std::string(part));
      }
    }
  }
  // `spark.conf.<key>`: the server-level Spark conf, any Spark key (config_keys.cc's prefix).
  Child(*Child(root, "spark"), "conf")->map_of_values = true;
  // `links.<name>`: JobInfo.links' URL templates (config_keys.cc's prefix).
  Child(root, "links")->map_of_values = true;
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  WriteNode(w, root, /*root=*/true);
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace kje::server
