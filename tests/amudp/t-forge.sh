#!/bin/bash
# timeout: 20
# Malformed, truncated, foreign-job, forged and wrong-sender datagrams sent
# from a raw socket are dropped, each counted under its reason; nothing is
# delivered, and the endpoint keeps working.
set -eu
"${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/amudp/t_amudp_forge"
