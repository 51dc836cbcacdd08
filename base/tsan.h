#pragma once

// Happens-before edges that ThreadSanitizer can't see by itself: a hand-off through code built
// without it (gRPC's library passes a callback call's state from the thread that starts it to
// the one that completes it). Nothing outside a -fsanitize=thread build.
//
//   KJE_TSAN_RELEASE(&state);  // on the handing thread, after its last write before the hand-off
//   KJE_TSAN_ACQUIRE(&state);  // on the receiving thread, before its first access

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define KJE_TSAN_RELEASE(addr) __tsan_release(const_cast<void*>(static_cast<const void*>(addr)))
#define KJE_TSAN_ACQUIRE(addr) __tsan_acquire(const_cast<void*>(static_cast<const void*>(addr)))
#else
#define KJE_TSAN_RELEASE(addr) static_cast<void>(addr)
#define KJE_TSAN_ACQUIRE(addr) static_cast<void>(addr)
#endif
