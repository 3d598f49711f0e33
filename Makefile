# gridtail - build, test, demo, benchmarks.
#
#   make            build ./gridtail (installs the build packages if missing)
#   make check      install the test tools too, build and run every test;
#                   ends with "N passed, N failed, N skipped"
#   make demo       synthetic data for 27 grid sites, loaded and asked where to run
#   make asan       the same tests under AddressSanitizer + UBSan
#   make valgrind   the CLI tests under valgrind (leaks are errors)
#   make fuzz       the libFuzzer targets (tests/fuzz/), FUZZ_RUNS runs each
#   make bench      the benchmarks in scripts/bench/
#   make install / uninstall   (PREFIX=/usr/local, DESTDIR=)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
SYSCONFDIR ?= /etc
BUILD ?= build

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -std=c11 -Wall -Wextra -Werror -Wstrict-prototypes -Wshadow -Wformat=2
PKGS := sqlite3 libpq libcurl gsl jansson libmicrohttpd libarchive nettle
TEST_PKGS := cmocka

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lm -pthread
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS))
TEST_LIBS = $(shell pkg-config --libs $(TEST_PKGS))
INCLUDES := -Isrc -I.
ALL_CFLAGS = $(WARN) $(INCLUDES) $(CFLAGS) $(PKG_CFLAGS) -pthread -MMD -MP

# The rooms, bottom to top (docs/ARCHITECTURE.md): base helpers, then
# collectors -> db -> estimators -> advisor -> server; the CLI front end
# is not in the library.
BASE_SRC := src/base/error.c src/base/util.c src/base/config.c src/base/prefault.c \
	src/base/progress.c src/base/interrupt.c src/base/numfmt.c src/base/jsonout.c \
	src/base/jsonscan.c
COLLECTOR_SRC := \
	collectors/collectors.c collectors/http.c collectors/csvread.c \
	collectors/csvformat.c collectors/jsonin.c collectors/probe.c \
	collectors/amp_csv.c collectors/csv.c collectors/amp_json.c \
	collectors/esmond.c collectors/matrix.c collectors/synth.c collectors/push.c \
	collectors/sitemap.c collectors/atlas.c collectors/pscheduler.c \
	collectors/prometheus.c collectors/promql.c collectors/promhist.c
DB_SRC := db/db.c db/store.c db/ingest.c db/query.c db/fitcache.c db/copy.c db/eventlog.c \
          db/sqlite/conn.c db/sqlite/schema.c db/sqlite/write.c db/sqlite/read.c \
          db/sqlite/blobs.c db/sqlite/events.c \
          db/postgres/conn.c db/postgres/stmts.c db/postgres/schema.c \
          db/postgres/write.c db/postgres/read.c db/postgres/blobs.c \
          db/postgres/events.c
ESTIMATOR_SRC := \
	estimators/models.c estimators/pareto.c estimators/normal.c estimators/delta.c \
	estimators/empirical.c estimators/steps.c \
	estimators/fit.c estimators/emax.c estimators/lcsum.c estimators/ladder.c estimators/chebfit.c \
	estimators/sliding.c \
	estimators/tracker.c estimators/conformal.c estimators/changepoint.c
COMPANION_SRC := \
	estimators/companion/neighbor.c estimators/companion/extrap.c \
	estimators/companion/loggps.c estimators/companion/flowsim.c \
	estimators/companion/topology.c
ADVISOR_SRC := src/advisor/advisor.c src/advisor/advice.c src/advisor/pairfits.c \
               src/advisor/exports.c src/advisor/status.c src/advisor/alerts.c \
               src/advisor/events.c \
               src/advisor/adaptive.c src/advisor/calibrate.c src/advisor/rootcache.c \
               src/advisor/parallel.c
BACKTEST_SRC := src/advisor/errdist.c src/advisor/backtest.c
PLOT_SRC := src/plot/svg.c src/plot/ccdf.c src/plot/series.c src/plot/matrix.c \
            src/plot/emaxplot.c src/plot/btplot.c
SERVER_SRC := src/server/server.c src/server/metrics.c src/server/auth.c \
	src/server/samples.c src/server/workers.c src/server/peers.c
CLI_SRC := \
	src/cli/main.c src/cli/cli.c src/cli/cmd_ingest.c src/cli/cmd_inspect.c \
	src/cli/cmd_admin.c src/cli/cmd_estimate.c src/cli/cmd_advise.c \
	src/cli/cmd_models.c src/cli/cmd_serve.c src/cli/cmd_synth.c src/cli/cmd_backtest.c \
	src/cli/cmd_plot.c src/cli/cmd_push.c src/cli/cmd_store.c src/cli/cmd_alerts.c

LIB_SRC := $(BASE_SRC) $(COLLECTOR_SRC) $(DB_SRC) $(ESTIMATOR_SRC) \
	$(COMPANION_SRC) $(ADVISOR_SRC) $(BACKTEST_SRC) $(PLOT_SRC) $(SERVER_SRC)

TESTS := test_util test_config test_csvread test_collectors test_db test_store test_http test_fuzz test_fit test_emax test_sliding test_advisor test_models test_server test_probe test_synth test_empirical test_backtest test_changepoint

DASHBOARD := src/server/dashboard/index.html src/server/dashboard/dashboard.js \
	src/server/dashboard/land.js src/server/dashboard/dashboard.css docs/openapi.json
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/assets.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libgridtail.a
BIN := $(BUILD)/gridtail
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

.PHONY: all deps test-deps build check check-run demo demo-run asan valgrind bench install \
	uninstall clean fuzz fuzz-bins

all: deps
	@$(MAKE) --no-print-directory build

# Debian's packages, installed when missing (scripts/install-deps.sh):
# `deps` what the build and the demo need, `test-deps` also what the
# tests start and the pinned OpenAPI linter.
deps:
	@QUIET=$(QUIET) sh scripts/install-deps.sh build

test-deps:
	@sh scripts/install-deps.sh test

build: $(BIN) gridtail

gridtail: $(BIN)
	ln -sf $(BIN) gridtail

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

# The dashboard's files and the API description, compiled in
# (src/server/assets.h).
$(BUILD)/gen/assets.c: $(DASHBOARD) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $(DASHBOARD) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/assets.o: $(BUILD)/gen/assets.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The E[max] kernels: vectorized calls into glibc's libmvec (see lcsum.c).
# clang reports the simd loops it leaves scalar as errors under -Werror.
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo yes)
LCSUM_FLAGS := -O3 -fno-math-errno -fno-trapping-math -fopenmp-simd
ifeq ($(CC_IS_CLANG),yes)
LCSUM_FLAGS += -Wno-pass-failed
endif
$(BUILD)/obj/estimators/lcsum.o: EXTRA_CFLAGS = $(LCSUM_FLAGS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# the level-shift detector's test also builds its offline reference
$(BUILD)/tests/test_changepoint: tests/unit/test_changepoint.c tests/ref/pelt.c tests/ref/pelt.h \
		tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< tests/ref/pelt.c $(LIB) $(LDFLAGS) $(PKG_LIBS) $(TEST_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(PKG_LIBS) $(TEST_LIBS)

check: test-deps
	@$(MAKE) --no-print-directory check-run

check-run: $(BIN) $(TEST_BINS)
	@BUILD=$(BUILD) sh tests/run.sh

# Quiet: no compiler lines, the packages' output in build/deps.log.
demo:
	@$(MAKE) -s --no-print-directory deps QUIET=1
	@echo "building gridtail..."
	@$(MAKE) -s --no-print-directory build
	@$(MAKE) -s --no-print-directory demo-run

demo-run:
	@sh scripts/demo.sh $(BIN)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

asan: test-deps
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" check-run

# libFuzzer targets (tests/fuzz/): the library built by clang with
# coverage, ASan and UBSan; each target runs FUZZ_RUNS inputs from its
# seeds (tests/fuzz/run.sh says what ran and what was found).
FUZZ_TARGETS := fuzz_samples fuzz_push fuzz_request fuzz_tokens fuzz_jsonscan fuzz_config \
	fuzz_exportmap fuzz_thresholds
FUZZ_RUNS ?= 100000
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

fuzz:
	@sh scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" fuzz-bins
	@sh tests/fuzz/run.sh build-fuzz/fuzz $(FUZZ_RUNS) $(FUZZ_TARGETS)

fuzz-bins: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/common.c tests/fuzz/fuzz.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -fsanitize=fuzzer,address,undefined -o $@ $< \
	  tests/fuzz/common.c $(LIB) $(PKG_LIBS)

valgrind: test-deps
	@$(MAKE) --no-print-directory build $(TEST_BINS)
	@BUILD=$(BUILD) GT_VALGRIND=1 sh tests/run.sh

bench: test-deps
	@$(MAKE) --no-print-directory build
	@sh scripts/bench/ingest.sh
	@sh scripts/bench/emax.sh
	@sh scripts/bench/fit.sh
	@sh scripts/bench/closed_form.sh
	@sh scripts/bench/advisor.sh
	@sh scripts/bench/simulate.sh
	@sh scripts/bench/serve.sh
	@sh scripts/bench/serve_cg.sh
	@sh scripts/bench/empirical.sh
	@sh scripts/bench/adaptive.sh

# The binary, the cron wrapper, the broker hooks, the man page; README.md
# and docs/ as they are in the source tree, pictures and the Quick tour's
# inputs included, so that every link of the installed README resolves; the
# cron, config and broker examples; the systemd unit; the system user
# gridtail (sysusers.d) and its directories (tmpfiles.d) that the unit, the
# cron example and the CLI share; and the config file unless one is already
# there (an operator's settings are never overwritten; the shipped one is
# then put beside it as .dist).  @BINDIR@, @SYSCONFDIR@ and @LOCALSTATEDIR@
# in etc/ are filled in.  Installed by root without DESTDIR on a machine
# with systemd-sysusers, the user and directories are made at once.
DOCDIR ?= $(PREFIX)/share/doc/gridtail
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
LOCALSTATEDIR ?= /var
LIBEXECDIR ?= $(PREFIX)/libexec/gridtail
DOCS := $(wildcard docs/*.md) docs/openapi.json
DOC_TREES := docs/img docs/examples
SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	  -e 's|@LOCALSTATEDIR@|$(LOCALSTATEDIR)|g' -e 's|/usr/local/libexec/gridtail|$(LIBEXECDIR)|g'

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)/docs \
	  $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/gridtail \
	  $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gridtail
	install -m 755 scripts/gridtail-cron $(DESTDIR)$(BINDIR)/gridtail-cron
	install -m 755 scripts/brokers/gridway-im-gridtail scripts/brokers/htcondor-startd-cron \
	  $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 scripts/brokers/gridway-job.jt etc/prometheus/gridtail-rules.yml \
	  $(DESTDIR)$(DOCDIR)/examples/
	$(SUBST) scripts/brokers/htcondor-gridtail.config > $(DESTDIR)$(DOCDIR)/examples/htcondor-gridtail.config
	install -m 644 docs/gridtail.1 $(DESTDIR)$(MANDIR)/gridtail.1
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	find $(DOC_TREES) -type d -exec install -d $(DESTDIR)$(DOCDIR)/{} ';'
	find $(DOC_TREES) -type f -exec install -m 644 {} $(DESTDIR)$(DOCDIR)/{} ';'
	$(SUBST) etc/cron.d/gridtail > $(DESTDIR)$(DOCDIR)/examples/cron.d-gridtail
	$(SUBST) etc/gridtail.conf > $(DESTDIR)$(DOCDIR)/examples/gridtail.conf
	$(SUBST) etc/systemd/gridtail-serve.service > $(DESTDIR)$(UNITDIR)/gridtail-serve.service
	$(SUBST) etc/sysusers.d/gridtail.conf > $(DESTDIR)$(SYSUSERSDIR)/gridtail.conf
	$(SUBST) etc/tmpfiles.d/gridtail.conf > $(DESTDIR)$(TMPFILESDIR)/gridtail.conf
	chmod 644 $(DESTDIR)$(DOCDIR)/examples/* $(DESTDIR)$(UNITDIR)/gridtail-serve.service \
	  $(DESTDIR)$(SYSUSERSDIR)/gridtail.conf $(DESTDIR)$(TMPFILESDIR)/gridtail.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf ]; then \
	  conf=$(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf.dist; \
	  echo "kept $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf; the shipped one is gridtail.conf.dist"; \
	else \
	  conf=$(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf; \
	fi; \
	$(SUBST) etc/gridtail.conf > $$conf.tmp && chmod 644 $$conf.tmp && mv $$conf.tmp $$conf
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null; then \
	  systemd-sysusers $(SYSUSERSDIR)/gridtail.conf && \
	  systemd-tmpfiles --create $(TMPFILESDIR)/gridtail.conf; \
	elif [ -z "$(DESTDIR)" ]; then \
	  echo "make the user gridtail and $(LOCALSTATEDIR)/lib/gridtail, $(LOCALSTATEDIR)/log/gridtail:"; \
	  echo "see README.md, 'Installing the service' (useradd without systemd)"; \
	fi

# Leaves the config file (it is the operator's), the user and the store.
uninstall:
	rm -rf $(DESTDIR)$(LIBEXECDIR)
	rm -f $(DESTDIR)$(BINDIR)/gridtail $(DESTDIR)$(BINDIR)/gridtail-cron \
	  $(DESTDIR)$(MANDIR)/gridtail.1 $(DESTDIR)$(UNITDIR)/gridtail-serve.service \
	  $(DESTDIR)$(SYSUSERSDIR)/gridtail.conf $(DESTDIR)$(TMPFILESDIR)/gridtail.conf \
	  $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf.dist
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-asan build-fuzz gridtail

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
