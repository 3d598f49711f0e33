/* test_auth.c - the API's tokens (src/server/auth.h): SHA-256 against
 * the published test vectors, the scope a header grants (right, wrong,
 * unlisted, scoped, malformed), the compare of every line whole (hashes
 * one bit off at the first and the last byte), tokens files and their
 * errors with file:line: field, and new tokens.  auth.h has no expiry: a
 * token is valid until its line is removed, which the reload case
 * shows. */
#include "testutil.h"
#include "server/auth.h"

#include <ctype.h>

/* SHA-256("abc") and SHA-256("") (FIPS 180-2, appendix B.1; the empty
 * string's well-known digest) */
#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/* SHA-256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") (B.2) */
#define SHA_448 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"

static void test_hash_vectors(void **state)
{
    (void)state;
    char hex[65];
    gt_token_hash_hex("abc", 3, hex);
    assert_string_equal(hex, SHA_ABC);
    gt_token_hash_hex("", 0, hex);
    assert_string_equal(hex, SHA_EMPTY);
    static const char m[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gt_token_hash_hex(m, strlen(m), hex);
    assert_string_equal(hex, SHA_448);
    /* only len bytes count */
    gt_token_hash_hex("abcdef", 3, hex);
    assert_string_equal(hex, SHA_ABC);
}

static void test_scope_names(void **state)
{
    (void)state;
    static const char *const names[] = {"none", "read", "write", "admin"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(gt_scope_name((enum gt_scope)i), names[i]);
    enum gt_scope s = GT_SCOPE_NONE;
    assert_true(gt_scope_parse("read", &s) && s == GT_SCOPE_READ);
    assert_true(gt_scope_parse("write", &s) && s == GT_SCOPE_WRITE);
    assert_true(gt_scope_parse("admin", &s) && s == GT_SCOPE_ADMIN);
    s = GT_SCOPE_READ;
    assert_false(gt_scope_parse("none", &s));   /* not a scope to grant */
    assert_false(gt_scope_parse("Admin", &s));
    assert_false(gt_scope_parse("", &s));
    assert_int_equal(s, GT_SCOPE_READ);
    /* each takes in the ones before it: the order of the enum */
    assert_true(GT_SCOPE_NONE < GT_SCOPE_READ && GT_SCOPE_READ < GT_SCOPE_WRITE &&
                GT_SCOPE_WRITE < GT_SCOPE_ADMIN);
}

struct files {
    char *dir;
    char path[300];
};

static struct gt_tokens *load_text(struct files *f, const char *text)
{
    snprintf(f->path, sizeof f->path, "%s/tokens", f->dir);
    write_file(f->path, text, strlen(text));
    struct gt_tokens *t = NULL;
    struct gt_error err = {0};
    if (gt_tokens_load(f->path, &t, &err))
        fail_msg("%s: %s", err.where, err.msg);
    return t;
}

static enum gt_scope scope(const struct gt_tokens *t, const char *header, bool *sent)
{
    bool s = false;
    enum gt_scope sc = gt_tokens_scope(t, header, &s);
    if (sent)
        *sent = s;
    return sc;
}

/* "abc" may read, "" hashes to SHA_EMPTY (listed as write, yet an empty
 * token is never granted), the 448-bit message may administer. */
static void test_scopes_granted(void **state)
{
    (void)state;
    struct files f = {tmpdir_new(), ""};
    struct gt_tokens *t = load_text(&f, "# the API's tokens\n"
                                        "\n"
                                        "read " SHA_ABC "\n"
                                        "   \t\n"
                                        "  write\t" SHA_EMPTY "  \r\n"
                                        "admin " SHA_448 "\n"
                                        "  # an indented comment\n");
    assert_int_equal(gt_tokens_count(t), 3);
    bool sent;
    assert_int_equal(scope(t, "Bearer abc", &sent), GT_SCOPE_READ);
    assert_true(sent);
    /* the scheme in any case, spaces before the token, a line's end after */
    assert_int_equal(scope(t, "bearer abc", NULL), GT_SCOPE_READ);
    assert_int_equal(scope(t, "BEARER    abc", NULL), GT_SCOPE_READ);
    assert_int_equal(scope(t, "Bearer abc\r\n", NULL), GT_SCOPE_READ);
    assert_int_equal(scope(t, "Bearer abc extra", NULL), GT_SCOPE_READ);
    assert_int_equal(scope(t, "Bearer abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                           NULL), GT_SCOPE_ADMIN);
    /* wrong tokens: sent, nothing granted */
    static const char *const wrong[] = {"Bearer abd", "Bearer ab", "Bearer abcd", "Bearer ABC",
                                        ("Bearer " SHA_ABC), "Basic abc", "Bearerabc",
                                        "Bearer ", "Bearer    ", "abc", "Token abc"};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        sent = false;
        if (scope(t, wrong[i], &sent) != GT_SCOPE_NONE)
            fail_msg("'%s' was granted a scope", wrong[i]);
        assert_true(sent);
    }
    /* none sent */
    assert_int_equal(scope(t, NULL, &sent), GT_SCOPE_NONE);
    assert_false(sent);
    assert_int_equal(scope(t, "", &sent), GT_SCOPE_NONE);
    assert_false(sent);
    /* no tokens at all: nothing is granted */
    assert_int_equal(scope(NULL, "Bearer abc", &sent), GT_SCOPE_NONE);
    assert_true(sent);
    assert_int_equal(gt_tokens_count(NULL), 0);
    gt_tokens_free(t);
    gt_tokens_free(NULL);
    tmpdir_free(f.dir);
}

/* A token listed twice gets the wider scope, whichever line comes
 * first; removing its line (the only way a token ends) takes it away. */
static void test_scope_widest_and_revoked(void **state)
{
    (void)state;
    struct files f = {tmpdir_new(), ""};
    struct gt_tokens *t = load_text(&f, "admin " SHA_ABC "\nread " SHA_ABC "\n");
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_ADMIN);
    gt_tokens_free(t);
    t = load_text(&f, "read " SHA_ABC "\nwrite " SHA_ABC "\nread " SHA_ABC "\n");
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_WRITE);
    gt_tokens_free(t);
    t = load_text(&f, "write " SHA_448 "\n");
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_NONE);
    gt_tokens_free(t);
    /* upper-case hex reads the same */
    char upper[80] = "write ";
    for (size_t i = 0; i < 64; i++)
        upper[6 + i] = (char)toupper((unsigned char)SHA_ABC[i]);
    upper[70] = '\n', upper[71] = 0;
    t = load_text(&f, upper);
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_WRITE);
    gt_tokens_free(t);
    tmpdir_free(f.dir);
}

static char hexdigit(int v)
{
    return "0123456789abcdef"[v & 15];
}

/* The compare looks at every byte: a listed hash one bit away from the
 * token's, at any of the 8 bits of the first, a middle and the last
 * byte, grants nothing; the exact one, listed last among them, grants
 * its scope (memcmp is the reference). */
static void test_compare_every_bit(void **state)
{
    (void)state;
    struct files f = {tmpdir_new(), ""};
    static const int bytes[] = {0, 13, 31};
    for (size_t bi = 0; bi < 3; bi++)
        for (int bit = 0; bit < 8; bit++) {
            char line[80], hex[65];
            memcpy(hex, SHA_ABC, 65);
            int byte = bytes[bi];
            int v = (int)strtol((char[]){hex[2 * byte], hex[2 * byte + 1], 0}, NULL, 16);
            v ^= 1 << bit;
            hex[2 * byte] = hexdigit(v >> 4), hex[2 * byte + 1] = hexdigit(v);
            assert_true(memcmp(hex, SHA_ABC, 64) != 0);
            snprintf(line, sizeof line, "admin %s\n", hex);
            struct gt_tokens *t = load_text(&f, line);
            if (scope(t, "Bearer abc", NULL) != GT_SCOPE_NONE)
                fail_msg("a hash differing in bit %d of byte %d matched", bit, byte);
            gt_tokens_free(t);
        }
    /* 24 near misses as admin and the exact hash as read: read */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    for (int byte = 0; byte < 32; byte += 31)
        for (int bit = 0; bit < 8; bit++) {
            char hex[65];
            memcpy(hex, SHA_ABC, 65);
            int v = (int)strtol((char[]){hex[2 * byte], hex[2 * byte + 1], 0}, NULL, 16) ^
                    (1 << bit);
            hex[2 * byte] = hexdigit(v >> 4), hex[2 * byte + 1] = hexdigit(v);
            fprintf(m, "admin %s\n", hex);
        }
    fprintf(m, "read %s\n", SHA_ABC);
    fclose(m);
    struct gt_tokens *t = load_text(&f, text);
    assert_int_equal(gt_tokens_count(t), 17);
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_READ);
    gt_tokens_free(t);
    free(text);
    tmpdir_free(f.dir);
}

/* A bad line: GT_EINPUT, where "FILE:LINE: field", and why. */
static void test_file_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *where;   /* after "FILE:" */
        const char *msg;
    } cases[] = {
        {"read " SHA_ABC "\nsuper " SHA_ABC "\n", "2: scope", "expected read, write or admin"},
        {"none " SHA_ABC "\n", "1: scope", "expected read, write or admin"},
        {"# c\nwrite\n", "2: sha256",
         "expected the 64 hex digits of the token's SHA-256 (gridtail token new)"},
        {"write " SHA_ABC "0\n", "1: sha256",
         "expected the 64 hex digits of the token's SHA-256 (gridtail token new)"},
        {"write abc\n", "1: sha256",
         "expected the 64 hex digits of the token's SHA-256 (gridtail token new)"},
        {"\n\nadmin ga7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
         "3: sha256", "not a hex digit"},
        {"admin ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a-\n",
         "1: sha256", "not a hex digit"},
        {"read " SHA_ABC " # a comment\n", "1: line", "more than SCOPE SHA256HEX"},
        {"read " SHA_ABC " admin\n", "1: line", "more than SCOPE SHA256HEX"},
    };
    struct files f = {tmpdir_new(), ""};
    snprintf(f.path, sizeof f.path, "%s/tokens", f.dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_file(f.path, cases[i].text, strlen(cases[i].text));
        struct gt_tokens *t = (struct gt_tokens *)1;
        struct gt_error err = {0};
        assert_int_equal(gt_tokens_load(f.path, &t, &err), GT_EINPUT);
        assert_null(t);
        char where[400];
        snprintf(where, sizeof where, "%s:%s", f.path, cases[i].where);
        assert_string_equal(err.where, where);
        assert_string_equal(err.msg, cases[i].msg);
    }
    /* a line of 600 bytes */
    char big[700];
    memset(big, 'x', 600);
    big[600] = '\n', big[601] = 0;
    write_file(f.path, big, strlen(big));
    struct gt_tokens *t;
    struct gt_error err = {0};
    assert_int_equal(gt_tokens_load(f.path, &t, &err), GT_EINPUT);
    char where[400];
    snprintf(where, sizeof where, "%s:1", f.path);
    assert_string_equal(err.where, where);
    assert_string_equal(err.msg, "line longer than 511 bytes");
    /* missing file, a directory: GT_EIO naming the path */
    char none[320];
    snprintf(none, sizeof none, "%s/none", f.dir);
    err = (struct gt_error){0};
    assert_int_equal(gt_tokens_load(none, &t, &err), GT_EIO);
    assert_string_equal(err.where, none);
    assert_string_equal(err.msg, "No such file or directory");
    err = (struct gt_error){0};
    assert_int_equal(gt_tokens_load(f.dir, &t, &err), GT_EIO);
    assert_string_equal(err.msg, "not a regular file");
    /* an empty file loads, with no token */
    write_file(f.path, "", 0);
    assert_int_equal(gt_tokens_load(f.path, &t, &err), GT_OK);
    assert_int_equal(gt_tokens_count(t), 0);
    assert_int_equal(scope(t, "Bearer abc", NULL), GT_SCOPE_NONE);
    gt_tokens_free(t);
    tmpdir_free(f.dir);
}

/* More than GT_TOKENS_MAX lines is refused at the first one too many. */
static void test_file_too_many(void **state)
{
    (void)state;
    struct files f = {tmpdir_new(), ""};
    snprintf(f.path, sizeof f.path, "%s/tokens", f.dir);
    FILE *out = fopen(f.path, "w");
    for (int i = 0; i <= GT_TOKENS_MAX; i++)
        fprintf(out, "read %s\n", SHA_ABC);
    fclose(out);
    struct gt_tokens *t;
    struct gt_error err = {0};
    assert_int_equal(gt_tokens_load(f.path, &t, &err), GT_EINPUT);
    char where[400];
    snprintf(where, sizeof where, "%s:%d", f.path, GT_TOKENS_MAX + 1);
    assert_string_equal(err.where, where);
    assert_string_equal(err.msg, "more than 10000 tokens");
    tmpdir_free(f.dir);
}

static int b64url_value(char c)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* New tokens: 43 base64url characters holding 256 bits (the last one's
 * two low bits are padding, zero), different each time, and the hex of
 * their SHA-256; a file of that line grants the scope. */
static void test_token_new(void **state)
{
    (void)state;
    char tok[GT_TOKEN_LEN + 1], hex[65], prev[GT_TOKEN_LEN + 1] = "";
    struct files f = {tmpdir_new(), ""};
    for (int round = 0; round < 20; round++) {
        struct gt_error err = {0};
        assert_int_equal(gt_token_new(tok, hex, &err), GT_OK);
        assert_int_equal(strlen(tok), 43);
        for (int i = 0; i < 43; i++)
            assert_true(b64url_value(tok[i]) >= 0);
        assert_int_equal(b64url_value(tok[42]) & 3, 0);
        assert_int_equal(strlen(hex), 64);
        assert_int_equal(strspn(hex, "0123456789abcdef"), 64);
        char want[65];
        gt_token_hash_hex(tok, 43, want);
        assert_string_equal(hex, want);
        assert_string_not_equal(tok, prev);
        memcpy(prev, tok, sizeof tok);
        char line[120], header[80];
        snprintf(line, sizeof line, "write %s\n", hex);
        snprintf(header, sizeof header, "Bearer %s", tok);
        struct gt_tokens *t = load_text(&f, line);
        assert_int_equal(scope(t, header, NULL), GT_SCOPE_WRITE);
        header[strlen(header) - 1] ^= 1;   /* one character off */
        assert_int_equal(scope(t, header, NULL), GT_SCOPE_NONE);
        gt_tokens_free(t);
    }
    tmpdir_free(f.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_vectors),
        cmocka_unit_test(test_scope_names),
        cmocka_unit_test(test_scopes_granted),
        cmocka_unit_test(test_scope_widest_and_revoked),
        cmocka_unit_test(test_compare_every_bit),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_too_many),
        cmocka_unit_test(test_token_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
