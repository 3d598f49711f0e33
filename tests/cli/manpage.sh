# tier: slow
# stores: sqlite
# The man page matches --help (issue 49): for every command that
# `gridtail --help` lists, and every sub-command its usage names (plot
# ccdf, loggps fit, token new...), the long options of `gridtail CMD
# --help` are the options of that command's section of docs/gridtail.1,
# both ways; the global options likewise against its OPTIONS section.
# Each option missing on one side is named, with the section.  And the
# page is valid man(7): groff warns of nothing.
#
# What counts as listed: in --help, every option of the usage lines and
# every option that heads a line of an option table (indented at most 4
# spaces: "  --src NAME, --dst NAME", "  -h, --help ...;  --version"), not
# the ones its prose mentions (often another command's); in the man page,
# every option in the tag of a .TP item of the command's section (.SS
# whose first words are the command), not the ones its prose mentions.
# --help itself is left out of the commands' sets (every one takes it).
. "$GT_ROOT/tests/cli/lib.inc"
plan 69
MAN=$GT_ROOT/docs/gridtail.1

# help_opts [SUB]: the long options listed by the --help text on stdin,
# one a line, sorted; with SUB only those of the usage entry of that
# sub-command ("gridtail plot ccdf ..." and its continuation lines)
help_opts() {
    awk -v sub_="${1:-}" -v keep_help="${KEEP_HELP:-0}" '
    function grab(s, head,   t, pre) {
        while (match(s, /--[a-z0-9][a-z0-9-]*/)) {
            t = substr(s, RSTART, RLENGTH)
            pre = substr(s, 1, RSTART - 1)
            s = substr(s, RSTART + RLENGTH)
            # in a table line, only the options that head an entry: the
            # first, those after ", " (and an argument), or after 2 spaces
            if (head && pre !~ /^ *(-[a-zA-Z], )?$/ && pre !~ /^ ?[^ ]*, $/ && pre !~ /  $/)
                continue
            if (t != "--help" || keep_help) print t
        }
    }
    /^usage:/ { inusage = 1 }
    inusage && /^$/ { inusage = 0 }
    inusage {
        line = $0
        sub(/^usage:/, "", line)
        n = split(line, w, " ")
        if (w[1] == "gridtail") entry = w[3]
        if (sub_ == "" || entry == sub_) grab(line, 0)
        next
    }
    sub_ == "" && match($0, /^ +-/) && RLENGTH <= 5 { grab($0, 1) }
    ' | sort -u
}

# man_opts WORDS...: the options in the .TP tags of the man page's
# sections whose heading starts with those words (OPTIONS: the .SH
# OPTIONS section), one a line, sorted
man_opts() {
    awk -v want="$*" '
    function plain(s) {
        gsub(/\\f[BIRP]|\\f\(..|\\&|"/, "", s)
        gsub(/\\-/, "-", s)
        return s
    }
    function starts(h, w,   hw, ww, n, i) {
        n = split(w, ww, " ")
        split(h, hw, " ")
        for (i = 1; i <= n; i++) if (hw[i] != ww[i]) return 0
        return 1
    }
    /^\.SH / { insec = (want == "OPTIONS" && plain(substr($0, 5)) == "OPTIONS"); next }
    /^\.SS / { insec = want != "OPTIONS" && starts(plain(substr($0, 5)), want); next }
    /^\.TP/ { tag = 1; next }
    tag {
        tag = 0
        if (!insec) next
        s = plain($0)
        while (match(s, /--[a-z0-9][a-z0-9-]*/)) {
            print substr(s, RSTART, RLENGTH)
            s = substr(s, RSTART + RLENGTH)
        }
    }
    ' "$MAN" | sort -u
}

# same WHAT HELP_FILE MAN_FILE: the two sets equal; else each option
# missing on one side is named, and where
same() {
    comm -23 "$2" "$3" | sed "s/^/  $1: --help lists /; s/\$/, its section of docs\/gridtail.1 does not/" > miss.txt
    comm -13 "$2" "$3" | sed "s/^/  $1: docs\/gridtail.1 lists /; s/\$/, --help does not/" >> miss.txt
    cat miss.txt
    [ ! -s miss.txt ]
}

# has_section WORDS...: the man page has a .SS heading for them
has_section() {
    awk -v want="$*" '
    /^\.SS / { h = $0; sub(/^\.SS +/, "", h); gsub(/\\f[BIRP]|"/, "", h); gsub(/\\-/, "-", h)
               n = split(want, w, " "); split(h, hw, " "); ok = 1
               for (i = 1; i <= n; i++) if (hw[i] != w[i]) ok = 0
               if (ok) found = 1 }
    END { exit !found }' "$MAN"
}

# subs_of CMD: the sub-commands its usage names ("gridtail plot ccdf"),
# from its --help kept in help.CMD.txt
subs_of() {
    awk -v c="$1" '
    /^usage:/ { u = 1 }
    u && /^$/ { u = 0 }
    u { sub(/^usage:/, ""); if ($1 == "gridtail" && $2 == c && $3 ~ /^[a-z][a-z-]*$/) print $3 }' "help.$1.txt" | uniq
}

$GT --help > top.txt
sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' top.txt > commands.txt
# the commands and sub-commands checked, one a line
: > leaves.txt
for c in $(cat commands.txt); do
    $GT "$c" --help > "help.$c.txt"
    subs=$(subs_of "$c")
    if [ -z "$subs" ]; then echo "$c" >> leaves.txt; else for s in $subs; do echo "$c $s" >> leaves.txt; done; fi
done
# the plan: this count, 2 for the global options, 2 a command (its
# section; its options, both ways), the sections' names, groff.  A
# command more or less is a failure here, saying which
check "gridtail --help lists 32 commands and sub-commands (the plan's count)" \
    sh -c "[ \$(wc -l < leaves.txt) -eq 32 ] || { echo \"  found \$(wc -l < leaves.txt): \$(tr '\n' ' ' < leaves.txt)\"; exit 1; }"

KEEP_HELP=1 help_opts < top.txt > help.txt
man_opts OPTIONS > man.txt
check "global options: every one --help lists is in OPTIONS of docs/gridtail.1" \
    sh -c "[ -s help.txt ] && ! comm -23 help.txt man.txt | sed 's/^/  missing: /' | grep ."
check "global options: every one OPTIONS lists is in --help" \
    sh -c "! comm -13 help.txt man.txt | sed 's/^/  not in --help: /' | grep ."

while read -r c s; do
    what="$c${s:+ $s}"
    h=help.$c.txt
    if [ -n "$s" ]; then
        $GT $c $s --help > sub.txt
        if cmp -s sub.txt "$h"; then
            help_opts "$s" < "$h" > help.txt   # one text for all: the usage entry
        else
            help_opts < sub.txt > help.txt
        fi
    else
        help_opts < "$h" > help.txt
    fi
    man_opts $what > man.txt
    check "$what: a section in docs/gridtail.1" has_section $what
    check "$what: --help and the man page list the same options" same "$what" help.txt man.txt
done < leaves.txt

# sections_known: every .SS of COMMANDS names a command of --help
sections_known() {
    sed -n '/^\.SH COMMANDS/,/^\.SH /s/^\.SS *//p' "$MAN" |
        sed 's/\\f[BIRP]//g; s/"//g; s/\\-/-/g' | awk '{ print $1 }' | sort -u > sections.txt
    sort -u commands.txt | comm -13 - sections.txt | sed 's/^/  a section for "/; s/$/", a command --help does not list/' > extra.txt
    cat extra.txt
    [ -s sections.txt ] && [ ! -s extra.txt ]
}
check "every section of COMMANDS in docs/gridtail.1 is a command of --help" sections_known

if command -v groff >/dev/null 2>&1; then
    check "groff -man -ww: no warning" sh -c "groff -man -ww -z '$MAN' 2>&1 | tee groff.txt | head -5; [ ! -s groff.txt ]"
else
    skip "groff -man -ww: no warning" "groff is not installed (sh scripts/install-deps.sh test)"
fi
