# gridtail - build, test, demo, benchmarks.
#
#   make            build ./gridtail (installs Debian packages if missing)
#   make check      build and run every test; ends with "N passed, N failed"
#   make demo       synthetic data for 27 grid sites, loaded and asked where to run
#   make asan       the same tests under AddressSanitizer + UBSan
#   make valgrind   the CLI tests under valgrind (leaks are errors)
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
PKGS := sqlite3 libcurl gsl jansson libmicrohttpd libarchive nettle
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
	src/base/progress.c src/base/interrupt.c
COLLECTOR_SRC := \
	collectors/collectors.c collectors/http.c collectors/csvread.c \
	collectors/csvformat.c collectors/jsonin.c collectors/probe.c \
	collectors/amp_csv.c collectors/csv.c collectors/amp_json.c \
	collectors/esmond.c collectors/matrix.c collectors/synth.c collectors/push.c
DB_SRC := db/schema.c db/db.c db/store.c db/ingest.c db/query.c db/fitcache.c
ESTIMATOR_SRC := \
	estimators/models.c estimators/pareto.c estimators/normal.c estimators/delta.c \
	estimators/empirical.c estimators/steps.c \
	estimators/fit.c estimators/emax.c estimators/lcsum.c estimators/sliding.c \
	estimators/tracker.c estimators/changepoint.c
COMPANION_SRC := \
	estimators/companion/neighbor.c estimators/companion/extrap.c \
	estimators/companion/loggps.c estimators/companion/flowsim.c \
	estimators/companion/topology.c
ADVISOR_SRC := src/advisor/advisor.c src/advisor/advice.c src/advisor/pairfits.c \
               src/advisor/adaptive.c
BACKTEST_SRC := src/advisor/errdist.c src/advisor/backtest.c
PLOT_SRC := src/plot/svg.c src/plot/ccdf.c src/plot/series.c src/plot/matrix.c \
            src/plot/emaxplot.c src/plot/btplot.c
SERVER_SRC := src/server/server.c src/server/metrics.c src/server/auth.c \
	src/server/samples.c src/server/workers.c
CLI_SRC := \
	src/cli/main.c src/cli/cli.c src/cli/cmd_ingest.c src/cli/cmd_inspect.c \
	src/cli/cmd_admin.c src/cli/cmd_estimate.c src/cli/cmd_advise.c \
	src/cli/cmd_models.c src/cli/cmd_serve.c src/cli/cmd_synth.c src/cli/cmd_backtest.c \
	src/cli/cmd_plot.c src/cli/cmd_push.c

LIB_SRC := $(BASE_SRC) $(COLLECTOR_SRC) $(DB_SRC) $(ESTIMATOR_SRC) \
	$(COMPANION_SRC) $(ADVISOR_SRC) $(BACKTEST_SRC) $(PLOT_SRC) $(SERVER_SRC)

TESTS := test_util test_config test_csvread test_collectors test_db test_http test_fuzz test_fit test_emax test_sliding test_advisor test_models test_server test_probe test_synth test_empirical test_backtest test_changepoint

DASHBOARD := src/server/dashboard/index.html src/server/dashboard/dashboard.js \
	src/server/dashboard/dashboard.css docs/openapi.json
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/assets.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libgridtail.a
BIN := $(BUILD)/gridtail
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

.PHONY: all deps test-deps build check check-run demo demo-run asan valgrind bench install \
	uninstall clean fuzz

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

# The binary, the cron wrapper, the man page, the docs with the cron and
# config examples, the systemd unit (paths filled in), and the config
# file unless one is already there (an operator's settings are never
# overwritten; the shipped one is then put beside it as .dist).
DOCDIR ?= $(PREFIX)/share/doc/gridtail
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCS := README.md docs/ARCHITECTURE.md docs/ADVISOR.md docs/METHOD.md docs/MODELS.md \
	docs/BENCHMARKS.md docs/INTEGRATION.md docs/openapi.json
LIBEXECDIR ?= $(PREFIX)/libexec/gridtail

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)/examples \
	  $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/gridtail
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gridtail
	install -m 755 scripts/gridtail-cron $(DESTDIR)$(BINDIR)/gridtail-cron
	install -d $(DESTDIR)$(LIBEXECDIR)
	install -m 755 scripts/brokers/gridway-im-gridtail scripts/brokers/htcondor-startd-cron \
	  $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 scripts/brokers/gridway-job.jt scripts/brokers/htcondor-gridtail.config \
	  $(DESTDIR)$(DOCDIR)/examples/
	install -m 644 docs/gridtail.1 $(DESTDIR)$(MANDIR)/gridtail.1
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 644 etc/cron.d/gridtail $(DESTDIR)$(DOCDIR)/examples/cron.d-gridtail
	install -m 644 etc/gridtail.conf $(DESTDIR)$(DOCDIR)/examples/gridtail.conf
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	  etc/systemd/gridtail-serve.service > $(DESTDIR)$(UNITDIR)/gridtail-serve.service
	chmod 644 $(DESTDIR)$(UNITDIR)/gridtail-serve.service
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf ]; then \
	  install -m 644 etc/gridtail.conf $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf.dist; \
	  echo "kept $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf; the shipped one is gridtail.conf.dist"; \
	else \
	  install -m 644 etc/gridtail.conf $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf; \
	fi

# Leaves the config file (it is the operator's) and the store.
uninstall:
	rm -rf $(DESTDIR)$(LIBEXECDIR)
	rm -f $(DESTDIR)$(BINDIR)/gridtail $(DESTDIR)$(BINDIR)/gridtail-cron \
	  $(DESTDIR)$(MANDIR)/gridtail.1 $(DESTDIR)$(UNITDIR)/gridtail-serve.service \
	  $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf.dist
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-asan gridtail

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
