#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-doc-links.sh [FILE.md...]: every relative Markdown link [text](target)
# of README.md and doc/*.md (or of the files given) must name a file or
# directory that exists, and a "#anchor" must be a heading of the target
# Markdown file (GitHub's slugs: lower case, punctuation dropped, spaces as
# hyphens).  Links inside ``` blocks and absolute URLs are not checked.
# Prints one line per broken link and exits 1 if there is any.
# Run from the top of the source tree.

set -u
[ $# -gt 0 ] || set -- README.md doc/*.md
bad=0
n=0

# slugs FILE: the anchors of FILE's headings, one a line
slugs () {
    awk '/^```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
        tr 'A-Z' 'a-z' | LC_ALL=C sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

for md in "$@"; do
    dir=$(dirname "$md")
    # every (target) that follows a ](, outside fenced blocks
    links=$(awk '/^```/ { f = !f; next } !f' "$md" |
        grep -o '\]([^)[:space:]]*)' | sed -e 's/^](//' -e 's/)$//')
    for link in $links; do
        case $link in
            http://*|https://*|mailto:*) continue ;;
        esac
        n=$((n + 1))
        path=${link%%#*}
        anchor=
        case $link in *'#'*) anchor=${link#*#} ;; esac
        if [ -z "$path" ]; then
            target=$md
        else
            target=$dir/$path
        fi
        if [ ! -e "$target" ]; then
            echo "$md: ($link): $target does not exist"
            bad=$((bad + 1))
            continue
        fi
        if [ -n "$anchor" ]; then
            case $target in
                *.md)
                    if ! slugs "$target" | grep -qx -- "$anchor"; then
                        echo "$md: ($link): no heading #$anchor in $target"
                        bad=$((bad + 1))
                    fi ;;
            esac
        fi
    done
done
echo "check-doc-links: $n links, $bad broken"
[ $bad -eq 0 ]
