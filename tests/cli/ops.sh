# The operator's side (issue 11, part 4): make install lays out every
# piece and never overwrites a config; the cron wrapper logs what each run
# stored and has a clean --help; prune gives the space back.
. "$GT_ROOT/tests/cli/lib.inc"
plan 29
build=$(dirname "$GT_BIN")
dest=$PWD/root
inst() { make -s --no-print-directory -C "$GT_ROOT" BUILD="$build" DESTDIR="$dest" PREFIX=/usr SYSCONFDIR=/etc "$@"; }
check "make install" status_is 0 inst install
for f in usr/bin/gridtail usr/bin/gridtail-cron usr/share/man/man1/gridtail.1 \
         usr/share/doc/gridtail/METHOD.md usr/share/doc/gridtail/ARCHITECTURE.md \
         usr/share/doc/gridtail/examples/cron.d-gridtail usr/share/doc/gridtail/examples/gridtail.conf \
         usr/lib/systemd/system/gridtail-serve.service etc/gridtail/gridtail.conf; do
    check "installed: /$f" [ -s "$dest/$f" ]
done
unit=$dest/usr/lib/systemd/system/gridtail-serve.service
check "the unit has StateDirectory=" grep -q '^StateDirectory=gridtail$' "$unit"
check "the unit runs the installed binary" grep -q '^ExecStart=/usr/bin/gridtail serve$' "$unit"
check "no placeholder left in the unit" sh -c "! grep -q @ '$unit'"
if command -v systemd-analyze >/dev/null 2>&1; then
    check "systemd-analyze verify accepts the unit" sh -c "systemd-analyze verify '$unit' 2>&1 | grep -v 'gridtail: No such file\|Command .* is not executable' | grep -qi 'error' && exit 1 || exit 0"
fi
echo "# mine" >> "$dest/etc/gridtail/gridtail.conf"
check "make install again" status_is 0 inst install
check "the operator's config is kept" grep -q "^# mine" "$dest/etc/gridtail/gridtail.conf"
check "the shipped one beside it" [ -s "$dest/etc/gridtail/gridtail.conf.dist" ]
check "the installed config is valid" status_is 0 "$dest/usr/bin/gridtail" --config "$dest/etc/gridtail/gridtail.conf" config
check "make uninstall" status_is 0 inst uninstall
check "uninstall keeps the config" [ -s "$dest/etc/gridtail/gridtail.conf" ]
check "uninstall removes the binary and docs" sh -c "[ ! -e '$dest/usr/bin/gridtail' ] && [ ! -e '$dest/usr/share/doc/gridtail' ]"

# cron: a clean --help, counts in the log
check "gridtail-cron --help" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --help
check "--help is the header only" sh -c "! grep -q 'set -u' out.txt && grep -q '^usage: gridtail-cron' out.txt"
DB=c.db
$GT --db $DB init >/dev/null
$GT synth --count 3 --samples 30 --start 2026-11-01 -o c.csv
export GRIDTAIL="$GT_BIN" GRIDTAIL_DB=$DB
check "cron run" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --lock c.lock --log c.log -- amp-csv c.csv
check "the log says what the run stored" grep -q "c.csv: read 180, stored 180, duplicates 0, rejected 0" c.log
unset GRIDTAIL GRIDTAIL_DB

# prune hands the space back, and says how much
DB=p.db
$GT --db $DB init >/dev/null
$GT synth --count 10 --span 2d --start 2026-11-01 -o p.csv
$GT --db $DB ingest --quiet amp-csv p.csv
check "prune" status_is 0 $GT --db $DB prune --keep-days 1 --now 2026-11-03T00:00:00Z
check "it reports the sizes" grep -q "database .* MiB -> .* MiB (.* MiB given back)" out.txt
check "the file shrank by more than a third" sh -c "set -- \$(sed -n 's/^database \\([0-9.]*\\) MiB -> \\([0-9.]*\\) MiB.*/\\1 \\2/p' out.txt); awk -v a=\$1 -v b=\$2 'BEGIN { exit !(b < a * 0.67) }'"
check "the file on disk is that small" [ "$(stat -c %s $DB)" -lt 4000000 ]
