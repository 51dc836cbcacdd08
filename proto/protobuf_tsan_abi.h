#pragma once

// Force-included into every translation unit of a ThreadSanitizer build (KJE_TSAN; see
// CMakeLists.txt), before anything else.
//
// Why: protobuf 3.21's MapFieldBase grows two members (seq1_, seq2_) when __SANITIZE_THREAD__ is
// defined (map_field.h). Debian's libprotobuf is built without TSan, so code compiled with
// -fsanitize=thread would lay out every message with a map field differently from the library
// that constructs, parses and destroys it: JobTemplate's oneof case was overwritten (every Submit
// answered "template must be a Spark job"), and TSan reported the request's template as used
// after free. Reading map_field.h once with the macro hidden gives every translation unit the
// library's layout; its include guard keeps it that way. libstdc++'s configuration (the only
// other header that looks at the macro) is read first, with the macro in place.

#include <cstddef>

#pragma push_macro("__SANITIZE_THREAD__")
#undef __SANITIZE_THREAD__
#include <google/protobuf/map_field.h>
#pragma pop_macro("__SANITIZE_THREAD__")
