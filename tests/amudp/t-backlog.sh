#!/bin/bash
# timeout: 30
# A rank back from computing past its RTO reads the acks queued on its
# socket before it resends anything (t_amudp_backlog.c).
set -eu
"${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_backlog"
