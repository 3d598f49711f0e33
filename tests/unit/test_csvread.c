/* test_csvread.c - the RFC 4180 reader: quoting, line numbers, limits. */
#include "testutil.h"
#include "collectors/csvread.h"

static struct csv_reader *open_text(const char *text, FILE **f)
{
    *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(*f);
    struct csv_reader *r = csv_open(*f, ',');
    assert_non_null(r);
    return r;
}

static void assert_field(const struct csv_record *rec, int i, const char *want)
{
    assert_true(i < rec->n);
    assert_int_equal(rec->f[i].len, strlen(want));
    assert_memory_equal(rec->f[i].p, want, strlen(want));
}

static void test_plain_and_quoted(void **state)
{
    (void)state;
    FILE *f;
    struct csv_reader *r = open_text(
        "\xEF\xBB\xBF" "a,b,c\r\n"
        "1,\"x, y\",\"say \"\"hi\"\"\"\n"
        "\n"
        "2,\"multi\nline\",z\n"
        "3,,\n"
        "last,no,newline", &f);
    struct csv_record rec;
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.line, 1);
    assert_int_equal(rec.n, 3);
    assert_field(&rec, 0, "a");
    assert_field(&rec, 2, "c");
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.line, 2);
    assert_field(&rec, 1, "x, y");
    assert_field(&rec, 2, "say \"hi\"");
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.line, 4);
    assert_field(&rec, 1, "multi\nline");
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.line, 6);
    assert_int_equal(rec.n, 3);
    assert_field(&rec, 1, "");
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.line, 7);
    assert_field(&rec, 2, "newline");
    assert_int_equal(csv_next(r, &rec), 0);
    csv_close(r);
    fclose(f);
}

static void test_unterminated_quote(void **state)
{
    (void)state;
    FILE *f;
    struct csv_reader *r = open_text("a,b\n1,\"open\n2,3\n", &f);
    struct csv_record rec;
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(csv_next(r, &rec), 1);
    assert_non_null(rec.problem);
    assert_int_equal(csv_next(r, &rec), 0);
    csv_close(r);
    fclose(f);
}

static void test_too_many_fields_and_long_record(void **state)
{
    (void)state;
    size_t big = CSV_MAX_RECORD + 100;
    char *text = malloc(big + 256);
    memset(text, ',', 200);
    text[200] = '\n';
    memset(text + 201, 'x', big);
    strcpy(text + 201 + big, "\nok,1\n");
    FILE *f = fmemopen(text, strlen(text), "r");
    struct csv_reader *r = csv_open(f, ',');
    struct csv_record rec;
    assert_int_equal(csv_next(r, &rec), 1);
    assert_int_equal(rec.total, 201);
    assert_int_equal(rec.n, CSV_MAX_FIELDS);
    assert_int_equal(csv_next(r, &rec), 1);
    assert_non_null(rec.problem);
    assert_int_equal(rec.line, 2);
    assert_int_equal(csv_next(r, &rec), 1);
    assert_null(rec.problem);
    assert_int_equal(rec.line, 3);
    assert_field(&rec, 0, "ok");
    assert_int_equal(csv_next(r, &rec), 0);
    csv_close(r);
    fclose(f);
    free(text);
}

/* Records straddling buffer refills come out whole. */
static void test_many_records(void **state)
{
    (void)state;
    struct gt_buf b;
    gt_buf_init(&b, 1u << 26);
    for (int i = 0; i < 200000; i++)
        assert_int_equal(gt_buf_printf(&b, "%d,\"q%d\",tail\n", i, i), GT_OK);
    FILE *f = fmemopen(b.data, b.len, "r");
    struct csv_reader *r = csv_open(f, ',');
    struct csv_record rec;
    for (int i = 0; i < 200000; i++) {
        char want[32];
        assert_int_equal(csv_next(r, &rec), 1);
        assert_int_equal(rec.line, i + 1);
        snprintf(want, sizeof want, "q%d", i);
        assert_field(&rec, 1, want);
    }
    assert_int_equal(csv_next(r, &rec), 0);
    csv_close(r);
    fclose(f);
    gt_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_quoted),
        cmocka_unit_test(test_unterminated_quote),
        cmocka_unit_test(test_too_many_fields_and_long_record),
        cmocka_unit_test(test_many_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
