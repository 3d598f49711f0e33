# The Debian package's sources agree with the tree (issue 48, point 1):
# debian/changelog carries src/base/version.h's version; Depends names
# the package of every library gridtail opens with dlopen (the sonames
# of the *_lazy.h headers), which dh_shlibdeps cannot see; every unit of
# etc/systemd is handed to dh_installsystemd; and systemd-analyze verify
# passes every unit, the ingest template as an instance.  `make deb`
# itself (a build, lintian) is run by hand: docs/OPERATIONS.md.
. "$GT_ROOT/tests/cli/lib.inc"
plan 4
R=$GT_ROOT

version=$(sed -n 's/^#define GT_VERSION "\(.*\)"$/\1/p' "$R/src/base/version.h")
deb_version=$(sed -n '1s/^gridtail (\([^)]*\)).*/\1/p' "$R/debian/changelog")
check "debian/changelog is at src/base/version.h's $version (it says $deb_version)" [ "$deb_version" = "$version" ]

# Depends: the field's package names, comments and substvars left out
depends=$(sed -n '/^Depends:/,/^[A-Z][A-Za-z-]*:/p' "$R/debian/control" | grep -v '^#' |
    sed 's/^Depends://' | tr ',' '\n' | sed 's/[[:space:]]//g; s/(.*//' | grep -v '^\$' | grep -v '^[A-Z]')
sonames=$(sed -n 's/^#define [A-Z_]*_LAZY_SONAME "\(.*\)"$/\1/p' "$R"/src/*/*_lazy.h "$R"/collectors/*_lazy.h "$R"/db/*/*_lazy.h)
if command -v dpkg-query >/dev/null 2>&1 && [ -n "$sonames" ]; then
    check "Depends names the package of each dlopened library ($(echo $sonames))" sh -c '
        for so in '"$(echo $sonames)"'; do
            pkg=$(dpkg-query -S "*/$so" 2>/dev/null | sed -n "1s/:.*//p")
            [ -n "$pkg" ] || { echo "  $so: no installed package has it"; exit 1; }
            echo "'"$(echo $depends)"'" | tr " " "\n" | grep -qx "$pkg" ||
                { echo "  $so is in $pkg, not in debian/control Depends"; exit 1; }
        done'
else
    skip "Depends names the package of each dlopened library" "no dpkg-query here"
fi

units=$(cd "$R/etc/systemd" && ls -- *.service *.timer)
check "every unit of etc/systemd is handed to dh_installsystemd (debian/rules)" sh -c '
    for u in '"$(echo $units)"'; do
        sed -n "/^override_dh_installsystemd:/,/^\$/p" "'"$R"'/debian/rules" | grep -q -- "$u" ||
            { echo "  $u"; exit 1; }
    done'

if command -v systemd-analyze >/dev/null 2>&1; then
    # the units as installed, their programs the ones under test
    mkdir -p units bin
    ln -sf "$GT_BIN" bin/gridtail
    ln -sf "$GT_ROOT/scripts/gridtail-cron" bin/gridtail-cron
    for u in $units; do
        sed -e "s|@BINDIR@|$PWD/bin|g" -e 's|@SYSCONFDIR@|/etc|g' -e 's|@LOCALSTATEDIR@|/var|g' \
            "$R/etc/systemd/$u" > "units/$u"
    done
    cp units/gridtail-ingest@.service units/gridtail-ingest@amp.service
    cp units/gridtail-ingest@.timer units/gridtail-ingest@amp.timer
    check "systemd-analyze verify passes every unit (the ingest template as @amp)" sh -c '
        cd units && systemd-analyze verify --man=no $(ls | grep -v "@\.") > ../verify.txt 2>&1 ||
            { cat ../verify.txt; exit 1; }'
else
    skip "systemd-analyze verify passes every unit" "no systemd-analyze (apt-get install systemd)"
fi
