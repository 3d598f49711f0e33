# tier: slow
# kill -9 during an ingest leaves the database consistent; a rerun
# completes it.  Also: concurrent cron runs never overlap (flock).
# stores: sqlite postgresql
. "$GT_ROOT/tests/cli/lib.inc"
plan 12 10
DB=$(store k)
$GT --db "$DB" init >/dev/null
awk 'BEGIN { print "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms";
  for (t = 0; t < 6000; t++) for (p = 0; p < 100; p++)
    printf "%d,s%02d,d%02d,icmp,icmp,84,%.3f\n", 1795305600 + 60 * t, p % 10, int(p / 10), 10 + (t * p) % 97 / 7 }' > big.csv
$GT --db "$DB" ingest --quiet amp-csv big.csv &
pid=$!
# on PostgreSQL, once its transaction has written (an xid of its own);
# a SQLite store shows nothing of that from outside: a moment into it
writing() {
    [ "$(sql "$GT_PG_URL" "SELECT count(*) FROM pg_stat_activity WHERE datname = '$(pg_db_of "$DB")' AND backend_xid IS NOT NULL")" -gt 0 ] ||
        ! kill -0 $pid 2>/dev/null
}
if store_is postgresql; then wait_until 60 writing; else sleep 0.4; fi
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check "integrity check after kill -9" [ "$(integrity "$DB")" = ok ]
n=$(sql "$DB" 'SELECT count(*) FROM samples')
check "killed ingest stored all or nothing ($n)" [ "$n" = 0 -o "$n" = 600000 ]
check "rerun completes" status_is 0 $GT --db "$DB" ingest amp-csv big.csv
check "all 600000 samples present" [ "$(sql "$DB" 'SELECT count(*) FROM samples')" = 600000 ]

# cron wrapper: a second run while the lock is held is skipped
export GRIDTAIL="$GT_BIN" GRIDTAIL_DB=$DB
if first_pass; then
    flock cron.lock sh -c 'touch locked; until [ -e unlock ]; do sleep 0.1; done' &
    wait_until 60 [ -e locked ]
    check "cron run skipped while locked" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --lock cron.lock --log cron.log -- amp-csv big.csv
    check "skip is logged" grep -q "skipping this run" cron.log
    touch unlock
    wait
fi
check "cron run after the lock is free" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --lock cron.lock --log cron.log -- amp-csv big.csv
check "cron log has the summary" grep -q "exited 0" cron.log
check "cron run refits after ingest" grep -q "^.* refit: .* pairs, window" cron.log
check "the fits are cached" [ "$(sql "$DB" 'SELECT count(*) FROM fit_cache')" -gt 0 ]
check "cron with --refit-model adaptive" status_is 0 sh "$GT_ROOT/scripts/gridtail-cron" --lock cron.lock --log cron.log --refit-model adaptive -- amp-csv big.csv
tracked() {   # the roots' errors reported in the log, and kept in the store
    grep -q "roots' forecast errors tracked" cron.log &&
        [ "$(sql "$DB" "SELECT count(*) FROM fit_cache WHERE model LIKE 'track2:%'")" -gt 0 ]
}
check "it keeps the roots' forecast errors" tracked
