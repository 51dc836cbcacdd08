#pragma once

// The top-level commands, one file each (cli/<verb>.cc), for cli.cc's table. Internal to cli/.

#include "cli/command.h"

namespace kje::cli {

Command SubmitCommand();
Command StatusCommand();
Command DescribeCommand();
Command CancelCommand();
Command LogsCommand();
Command EventsCommand();
Command ListCommand();
Command WatchCommand();
Command HealthCommand();

}  // namespace kje::cli
