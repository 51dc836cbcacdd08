#pragma once

// A subscriber's mailbox: the bounded queue that closes when its consumer falls too far behind
// (a subscriber that missed a change must start over from a fresh read), so a slow stream loses
// its subscription instead of making the informer wait or the process hold an unbounded backlog.

#include "async/bounded_queue.h"

namespace kje::cache {

template <class T>
using Mailbox = async::BoundedQueue<T, async::Overflow::kCloseOnOverflow>;

}  // namespace kje::cache
