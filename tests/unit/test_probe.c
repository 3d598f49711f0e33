/* test_probe.c - gridtail's own probes (collectors/probe.h) on loopback:
 * a listening port answers (connected), a closed one answers too
 * (refused: the RST is a reply), a listener whose accept queue is full
 * drops the SYN (lost within the timeout); the targets-file grammar; and
 * the format end to end through a sink. */
#include "testutil.h"
#include "collectors/probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

static int listener(int backlog, unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, backlog), 0);
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return fd;
}

static void loopback(unsigned port, struct sockaddr_storage *ss, size_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = htons((uint16_t)port);
    *len = sizeof *a;
}

/* A loopback port with nobody listening. */
static unsigned closed_port(void)
{
    unsigned port;
    close(listener(1, &port));
    return port;
}

static void test_answered_refused_lost(void **state)
{
    (void)state;
    unsigned open_port, full_port;
    int open_fd = listener(16, &open_port);
    /* backlog 0: one connection fills the accept queue; later SYNs are
       dropped by the kernel, as by a congested or filtered path */
    int full_fd = listener(0, &full_port);
    struct sockaddr_storage ss[3];
    size_t len[3];
    loopback(full_port, &ss[0], &len[0]);
    int filler = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(filler, (struct sockaddr *)&ss[0], (socklen_t)len[0]), 0);
    /* a second one, never waited for, in case a kernel queues one more */
    int filler2 = socket(AF_INET, SOCK_STREAM, 0);
    fcntl(filler2, F_SETFL, O_NONBLOCK);
    (void)!connect(filler2, (struct sockaddr *)&ss[0], (socklen_t)len[0]);
    loopback(open_port, &ss[0], &len[0]);
    loopback(closed_port(), &ss[1], &len[1]);
    loopback(full_port, &ss[2], &len[2]);
    double rtt[3];
    struct gt_error err = {0};
    double t0 = gt_monotonic_ms();
    assert_int_equal(gt_probe_connect_all(ss, len, 3, 300, rtt, &err), GT_OK);
    double took = gt_monotonic_ms() - t0;
    assert_true(isfinite(rtt[0]) && rtt[0] >= 0 && rtt[0] < 300);   /* connected */
    assert_true(isfinite(rtt[1]) && rtt[1] >= 0 && rtt[1] < 300);   /* refused */
    assert_true(isnan(rtt[2]));                                       /* dropped */
    /* it waited for the lost one (the upper bound only catches a hang:
       speed is the benchmarks' business) */
    assert_true(took >= 290 && took < 60000);
    close(filler);
    close(filler2);
    close(open_fd);
    close(full_fd);
}

static void test_target_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line, *site, *host;
        unsigned port;
        bool ok;
    } cases[] = {
        {"cern lxplus.cern.ch", "cern", "lxplus.cern.ch", 22, true},
        {"s1\t10.0.0.1:443", "s1", "10.0.0.1", 443, true},
        {"s2   [2001:db8::1]:8443", "s2", "2001:db8::1", 8443, true},
        {"s3 [::1]", "s3", "::1", 22, true},
        {"s4 2001:db8::1", NULL, NULL, 0, false},     /* IPv6 needs brackets */
        {"s5", NULL, NULL, 0, false},
        {"s6 host:0", NULL, NULL, 0, false},
        {"s7 host:65536", NULL, NULL, 0, false},
        {"s8 host:22x", NULL, NULL, 0, false},
        {"s9 host extra", NULL, NULL, 0, false},
        {"s10 []:22", NULL, NULL, 0, false},
        {"s11 [::1]x", NULL, NULL, 0, false},
        {"s12 :22", NULL, NULL, 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *site, *host;
        size_t sl, hl;
        unsigned port;
        const char *why = gt_probe_parse_target(cases[i].line, strlen(cases[i].line), 22, &site,
                                                &sl, &host, &hl, &port);
        if (!cases[i].ok) {
            if (!why)
                fail_msg("accepted: %s", cases[i].line);
            continue;
        }
        if (why)
            fail_msg("%s: %s", cases[i].line, why);
        assert_int_equal(sl, strlen(cases[i].site));
        assert_memory_equal(site, cases[i].site, sl);
        assert_int_equal(hl, strlen(cases[i].host));
        assert_memory_equal(host, cases[i].host, hl);
        assert_int_equal(port, cases[i].port);
    }
    /* mutated lines: never read outside the line, spans inside it */
    unsigned seed = 5;
    for (int it = 0; it < 20000; it++) {
        char line[64];
        const char *base = cases[it % (sizeof cases / sizeof cases[0])].line;
        size_t len = strlen(base);
        memcpy(line, base, len);
        for (int m = rand_r(&seed) % 4; m >= 0 && len; m--)
            line[(size_t)rand_r(&seed) % len] = "[]: \t0x9\xff"[rand_r(&seed) % 9];
        len = (size_t)rand_r(&seed) % (len + 1);
        char *copy = malloc(len ? len : 1);   /* exact size: ASan sees overreads */
        memcpy(copy, line, len);
        const char *site, *host;
        size_t sl, hl;
        unsigned port;
        if (!gt_probe_parse_target(copy, len, 22, &site, &sl, &host, &hl, &port)) {
            assert_true(site == copy && sl > 0 && sl <= len);
            assert_true(host > copy && host + hl <= copy + len && hl > 0);
            assert_true(port >= 1 && port <= 65535);
        }
        free(copy);
    }
}

/* The format: bad lines rejected by number, good targets probed, one
 * sample per target and round, lost ones NAN. */
static void test_probe_format(void **state)
{
    (void)state;
    unsigned open_port;
    int open_fd = listener(16, &open_port);
    char text[512];
    int n = snprintf(text, sizeof text,
                     "# from a\n"
                     "up 127.0.0.1:%u\n"
                     "down 127.0.0.1:%u   # refused, still an answer\n"
                     "broken\n"
                     "up 127.0.0.1:1\n"
                     "self localhost:%u\n", open_port, closed_port(), open_port);
    struct gt_collect_opts o = {0};
    o.src = "a";
    o.probe_count = 2;
    o.probe_timeout_ms = 500;
    static struct capture c;
    struct gt_error err = {0};
    assert_int_equal(collect_text("probe", text, (size_t)n, &o, &c, &err), GT_OK);
    assert_int_equal(c.rejected, 2);
    assert_string_equal(c.reject_loc[0], "4");
    assert_string_equal(c.reject_loc[1], "5");   /* "up" again */
    assert_int_equal(c.emitted, 6);              /* 3 targets x 2 rounds */
    for (int i = 0; i < 6; i++) {
        assert_string_equal(c.s[i].src, "a");
        assert_int_equal(c.s[i].seq, i / 3);
        assert_true(isfinite(c.s[i].rtt) && c.s[i].rtt >= 0 && c.s[i].rtt < 500);
    }
    assert_string_equal(c.s[0].dst, "up");
    assert_string_equal(c.s[1].dst, "down");
    assert_string_equal(c.s[2].dst, "self");
    /* --src is required; a file with no target is refused */
    o.src = NULL;
    assert_int_equal(collect_text("probe", text, (size_t)n, &o, &c, &err), GT_EUSAGE);
    o.src = "a";
    gt_error_clear(&err);
    assert_int_equal(collect_text("probe", "ts,src,dst,rtt_ms\n1,a,b,2\n", 26, &o, &c, &err),
                     GT_EINPUT);
    assert_int_equal(c.emitted, 0);
    close(open_fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answered_refused_lost),
        cmocka_unit_test(test_target_lines),
        cmocka_unit_test(test_probe_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
