#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-why.sh - nodeshare-why's command line and what it says when
# Slurm cannot be asked, without a cluster: a slurm.conf whose slurmctld
# port nothing listens on, and no accounting (TAP).  What it says of real
# jobs is checked by the cluster scenarios (select.sh, scope.sh,
# accounting.sh).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"

why=$top_builddir/cmd/nodeshare-why

run "$why"
refused "no job id" 2 "nodeshare-why: expected a job id (see --help)"
run "$why" --bogus 42
refused "an unknown option" 2 "nodeshare-why: unknown option '--bogus'"
run "$why" 42 4x
refused "a malformed job id, after a good one" 2 \
    "nodeshare-why: '4x': expected a job id"

run "$why" --help
if [ "$st" = 0 ] && grep -q '^Usage: nodeshare-why ' "$tmp/out" \
   && ! grep -q SPDX "$tmp/out" && [ ! -s "$tmp/err" ]; then
    pass "--help: the usage on stdout, status 0"
else
    fail "--help: the usage on stdout, status 0 (exit $st)"
    head -3 "$tmp/out" | sed 's/^/#   /'
fi

if ! command -v squeue >/dev/null 2>&1 || ! command -v sacct >/dev/null 2>&1
then
    skip "squeue or sacct not installed"
    tap_end
    exit
fi

slurm_conf_down "$tmp/slurm.conf"
export SLURM_CONF="$tmp/slurm.conf"

run timeout 60 "$why" 42
refused "slurmctld down: said so, with squeue's words" 1 \
    "nodeshare-why: job 42: slurmctld did not answer (squeue: "
run timeout 60 "$why" 42 -a
refused "-a after the job id: accounting only" 1 \
    "nodeshare-why: job 42: not known to accounting"
run timeout 60 "$why" 42 43
if [ "$st" = 1 ] && [ "$(grep -c 'did not answer' "$tmp/err")" = 2 ]; then
    pass "two jobs, slurmctld down: a line for each"
else
    fail "two jobs, slurmctld down: a line for each (exit $st)"
    sed 's/^/#   /' "$tmp/err"
fi
tap_end
