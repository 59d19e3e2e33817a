# Sourced by scripts/fuzz-run.sh and scripts/fuzz-snapshot.sh: the libFuzzer limits every run
# and every merge share. A merge with a smaller -max_len than the runs would judge longer
# inputs by their first bytes only, so the two must never drift apart.
#   -timeout=10          an input running longer than 10 s is a `timeout-` artifact
#   -rss_limit_mb=2048   a process above 2 GB of RSS is an `oom-` artifact
#   -max_len=16384       no generated input is longer than 16 KiB
# shellcheck disable=SC2034  # used by the scripts that source this file
FUZZ_LIMITS=(-timeout=10 -rss_limit_mb=2048 -max_len=16384)
