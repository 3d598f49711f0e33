# tier: slow
# HTTPS (issue 14): serve --tls-cert/--tls-key with a certificate the test
# makes (openssl), verified by curl and by ingest --push; plain HTTP and an
# unverified client are refused.
. "$GT_ROOT/tests/cli/lib.inc"
plan 14
DB=t.db
$GT --db $DB init >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
    -subj /CN=localhost -addext 'subjectAltName=IP:127.0.0.1,DNS:localhost' 2>/dev/null
write_token   # tokens (the server's file) and token (the client's)
printf '[server]\ntokens_file = tokens\n[http]\nca_file = cert.pem\n[ingest]\nspool_dir = spool\n' > tls.ini
export GRIDTAIL_CONFIG=tls.ini
serve_start $DB --tls-cert cert.pem --tls-key key.pem
P=$PORT
check "serve says https" grep -q 'listening on https://' serve.log
check "curl verifies the certificate and is answered" sh -c "curl -sf --cacert cert.pem https://127.0.0.1:$P/healthz | grep -q alive"
check "a client that does not trust it is refused (curl exit 60)" sh -c "curl -s https://127.0.0.1:$P/healthz > /dev/null; [ \$? -eq 60 ]"
check "plain HTTP to the TLS port gets no answer" sh -c "! curl -sf -m 3 http://127.0.0.1:$P/healthz > /dev/null"
# a modern default (issue 26: TLS 1.0 and static RSA were accepted): the
# client lowers its own floor, so the refusals are the server's
check "TLS 1.0 and 1.1 are refused" sh -c "! (echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_1 -cipher DEFAULT@SECLEVEL=0 >/dev/null 2>&1) && ! (echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1 -cipher DEFAULT@SECLEVEL=0 >/dev/null 2>&1)"
check "static RSA key exchange is refused" sh -c "! (echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_2 -cipher AES128-GCM-SHA256 >/dev/null 2>&1)"
# CBC with SHA-1 (issue 45, point 13: ECDHE-RSA-AES128-SHA was accepted),
# and CBC at all: AEAD suites only
check "TLS 1.2 CBC with SHA-1 is refused (ECDHE-RSA-AES128-SHA)" sh -c "! (echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_2 -cipher ECDHE-RSA-AES128-SHA@SECLEVEL=0 2>&1 | grep -q 'Cipher is ECDHE-RSA-AES128-SHA\$')"
check "TLS 1.2 CBC with SHA-256 is refused too" sh -c "! (echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_2 -cipher ECDHE-RSA-AES128-SHA256@SECLEVEL=0 2>&1 | grep -q 'Cipher is ECDHE-RSA-AES128-SHA256\$')"
check "TLS 1.2 with ECDHE and TLS 1.3 are accepted" sh -c "echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256 2>&1 | grep -q 'New, TLSv1.2' && echo Q | timeout 10 openssl s_client -connect 127.0.0.1:$P -tls1_3 2>&1 | grep -q 'New, TLSv1.3'"
printf 'ts,src,dst,rtt_ms\n1795305600,a,b,10\n1795305660,a,b,11\n' > in.csv
check "ingest --push over HTTPS ([http] ca_file)" sh -c "$GT ingest csv in.csv --push https://127.0.0.1:$P --token-file token | grep -q 'stored 2'"
kill -TERM $pid
wait $pid
check "--tls-cert without --tls-key: usage" status_is 1 $GT --db $DB serve --listen localhost:0 --tls-cert cert.pem
check "a missing certificate: exit 3" status_is 3 $GT --db $DB serve --listen localhost:0 --tls-cert nope.pem --tls-key key.pem
printf '[server]\ntls_priorities = NOT-A-PRIORITY\n' > badprio.ini
check "a tls_priorities GnuTLS refuses: serve does not start, naming it" sh -c "GRIDTAIL_CONFIG=badprio.ini timeout 20 $GT --db $DB serve --listen localhost:0 --tls-cert cert.pem --tls-key key.pem 2> e.txt; [ \$? -eq 3 ] && grep -q 'tls_priorities' e.txt"
openssl req -x509 -newkey rsa:2048 -nodes -keyout other.pem -out other.crt -days 2 -subj /CN=x 2>/dev/null
check "a key that is not the certificate's: serve does not start, saying so" sh -c "$GT --db $DB serve --listen localhost:0 --tls-cert cert.pem --tls-key other.pem 2> e.txt; [ \$? -eq 3 ] && grep -q 'certificate' e.txt"
