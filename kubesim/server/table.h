#pragma once

// Server-side printing: the meta.k8s.io/v1 Table form kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Columns come from a CRD's
// additionalPrinterColumns, or are built in for the core types, as the API server does.

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

struct PrinterColumn {
  std::string name;
  std::string type;    // string, integer, number, boolean, date
  std::string format;  // "name" for the Name column
  std::string description;
  std::string json_path;  // for CRD columns
  int priority = 0;
};

// Columns for a type: `crd_columns` (a CRD version's additionalPrinterColumns; null or empty
// for none) or the built-in ones for core `plural`s; always starting with Name.
std::vector<PrinterColumn> TableColumns(std::string_view group, std::string_view plural,
                                        const boost::json::array* crd_columns);

// Renders a Table of `items`. `include_object`: "None", "Metadata" (default) or "Object".
// `list_metadata` becomes the table's metadata (resourceVersion, continue).
boost::json::object RenderTable(std::string_view group, std::string_view plural,
                                const std::vector<PrinterColumn>& columns,
                                const std::vector<const boost::json::object*>& items,
                                std::string_view include_object,
                                const boost::json::object& list_metadata, int64_t now_ms);

// The kubectl/apimachinery short age ("42s", "5m3s", "3h", "2d4h", "400d").
std::string HumanDuration(int64_t ms);

// Evaluates the simple JSONPath subset printer columns use: ".a.b", ".a[0].b", ".a['x.y']".
// Returns null when a step is missing.
boost::json::value EvalJsonPath(const boost::json::value& root, std::string_view path);

// Parses an RFC 3339 UTC timestamp ("2026-12-01T01:02:03Z", fraction allowed) to ms since the
// epoch; false when unparsable.
bool ParseRfc3339(std::string_view text, int64_t* ms);

// True when an Accept header asks for the Table form (as=Table in any of its media ranges).
bool AcceptsTable(std::string_view accept);

}  // namespace kubesim
