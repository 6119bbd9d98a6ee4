#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# manpages.sh - every manual page nodeshare installs renders at 80 columns
# with no groff warning at all (-ww: what `man --warnings` and lintian
# report, and more), and names its own command in its NAME section (TAP).
# Skipped without groff.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"

if ! command -v groff >/dev/null 2>&1; then
    skip "groff is not installed"
    tap_end
    exit
fi

# The pages of Makefile.am's man1_MANS, man5_MANS and man8_MANS.
pages=$(sed -n '/^man[158]_MANS = /,/[^\\]$/p' "$top_srcdir/Makefile.am" \
        | sed -e 's/^man[158]_MANS = //' -e 's/\\$//' | tr -s ' \t' '\n' \
        | grep .)
count=$(printf '%s\n' "$pages" | grep -c .)
if [ "$count" -ge 10 ]; then
    pass "Makefile.am installs $count manual pages"
else
    fail "Makefile.am installs $count manual pages (want 10 or more)"
fi

for page in $pages; do
    f=$top_srcdir/$page
    if [ ! -f "$f" ]; then
        fail "$page exists"
        continue
    fi
    w=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z -rLL=78n "$f" 2>&1)
    if [ -z "$w" ]; then
        pass "$page renders without a warning"
    else
        fail "$page renders without a warning"
        printf '%s\n' "$w" | head -5 | sed 's/^/#   /'
    fi
    # NAME: "PAGE \- what it does" or "PAGE, OTHER \- ...", PAGE the
    # file's name (what whatis and apropos index)
    name=$(basename "$page" | sed 's/\.[158]$//')
    if sed -n '/^\.SH NAME/{n;p;}' "$f" | grep -q "^$name\(,.*\)\{0,1\} \\\\- "
    then
        pass "$page: NAME names $name"
    else
        fail "$page: NAME names $name"
    fi
done
tap_end
