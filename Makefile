# gridtail - build, test, demo, benchmarks.
#
#   make            build ./gridtail (installs the build packages if missing)
#   make check      install the test tools too, build and run every test,
#                   in parallel; ends with "N passed, N failed, N skipped"
#                   (T='calib*' picks tests by name, J=N jobs at once)
#   make retest     only the tests that failed in the last run
#   make quick      the unit tests and the fast scripts, under a minute
#   make demo       synthetic data for 27 grid sites, loaded and asked where to run
#   make asan       the same tests under AddressSanitizer + UBSan
#   make valgrind   the CLI tests under valgrind (leaks are errors)
#   make fuzz       the libFuzzer targets (tests/fuzz/), FUZZ_RUNS runs each
#   make bench      the benchmarks in scripts/bench/
#   make install / uninstall   (PREFIX=/usr/local, DESTDIR=)
#   make deb        the Debian package gridtail_VERSION_amd64.deb (debian/), lintian-checked

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
# Loaded on first use with dlopen (src/base/lazylib.h), so not linked
# into gridtail: a command that does not fetch, open a PostgreSQL store,
# read an archive or serve never maps them nor the libraries they need.
# Their headers still come from PKG_CFLAGS; the unit tests and the fuzz
# targets link PKG_LIBS, every library (some call them directly).
LAZY_PKGS := libpq libcurl libarchive libmicrohttpd
BIN_LIBS = $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS))) -lm -pthread
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS))
TEST_LIBS = $(shell pkg-config --libs $(TEST_PKGS))
INCLUDES := -Isrc -I.
ALL_CFLAGS = $(WARN) $(INCLUDES) $(CFLAGS) $(PKG_CFLAGS) -pthread -MMD -MP

# The rooms, bottom to top (docs/ARCHITECTURE.md): base helpers, then
# collectors -> db -> estimators -> advisor -> plot -> server.  Every .c
# file of a room is in the library (the rooms are folders, so a new
# module needs no line here); the CLI front end is not in the library.
BASE_SRC := $(sort $(wildcard src/base/*.c))
COLLECTOR_SRC := $(sort $(wildcard collectors/*.c))
DB_SRC := $(sort $(wildcard db/*.c db/sqlite/*.c db/postgres/*.c))
ESTIMATOR_SRC := $(sort $(wildcard estimators/*.c))
COMPANION_SRC := $(sort $(wildcard estimators/companion/*.c))
ADVISOR_SRC := $(sort $(wildcard src/advisor/*.c))
PLOT_SRC := $(sort $(wildcard src/plot/*.c))
SERVER_SRC := $(sort $(wildcard src/server/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))

LIB_SRC := $(BASE_SRC) $(COLLECTOR_SRC) $(DB_SRC) $(ESTIMATOR_SRC) \
	$(COMPANION_SRC) $(ADVISOR_SRC) $(PLOT_SRC) $(SERVER_SRC)

# every tests/unit/test_*.c is a unit test binary
TESTS := $(sort $(basename $(notdir $(wildcard tests/unit/test_*.c))))

DASHBOARD := src/server/dashboard/index.html src/server/dashboard/dashboard.js \
	src/server/dashboard/land.js src/server/dashboard/dashboard.css docs/openapi.json
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/assets.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libgridtail.a
BIN := $(BUILD)/gridtail
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

.PHONY: all deps test-deps build check check-run retest quick demo demo-run asan valgrind bench install \
	uninstall deb clean fuzz fuzz-bins

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
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BIN_LIBS)

# the change detectors' tests (and the series plot's) also build their
# offline reference
$(BUILD)/tests/test_changepoint $(BUILD)/tests/test_segment $(BUILD)/tests/test_plot: \
		$(BUILD)/tests/%: tests/unit/%.c \
		tests/ref/pelt.c tests/ref/pelt.h tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< tests/ref/pelt.c $(LIB) $(LDFLAGS) $(PKG_LIBS) $(TEST_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(PKG_LIBS) $(TEST_LIBS)

# The tests run in parallel (tests/run.sh): J jobs at once (default 2 per
# CPU), T='PATTERN ...' picks some by name (make check T='calib*'), and
# make retest runs again only what failed last.  make quick is the quick
# tier: the unit binaries and the scripts not marked "# tier: slow", on
# SQLite, in under a minute.
NPROC := $(shell nproc 2>/dev/null || echo 1)
RUN_TESTS = BUILD=$(BUILD) T='$(T)' GT_JOBS='$(J)' sh tests/run.sh

check: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BIN) $(TEST_BINS)
	@$(MAKE) --no-print-directory check-run

check-run: $(BIN) $(TEST_BINS)
	@$(RUN_TESTS)

retest: $(BIN) $(TEST_BINS)
	@$(RUN_TESTS) --retest

quick: deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BIN) $(TEST_BINS)
	@$(RUN_TESTS) --quick

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

# The binary, the cron wrapper, the broker hooks, the man pages; README.md
# and docs/ as they are in the source tree, pictures and the Quick tour's
# inputs included, so that every link of the installed README resolves; the
# cron, config, ingest and broker examples; the systemd units (the
# service, the refit timer, the ingest timer template); the system user
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
UNITS := $(notdir $(wildcard etc/systemd/*.service etc/systemd/*.timer))
INGEST_EXAMPLES := $(notdir $(wildcard etc/ingest/*))
SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	  -e 's|@LOCALSTATEDIR@|$(LOCALSTATEDIR)|g' -e 's|/usr/local/libexec/gridtail|$(LIBEXECDIR)|g'

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)/docs \
	  $(DESTDIR)$(DOCDIR)/examples/ingest $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/gridtail \
	  $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gridtail
	install -m 755 scripts/gridtail-cron $(DESTDIR)$(BINDIR)/gridtail-cron
	install -m 755 scripts/brokers/gridway-im-gridtail scripts/brokers/htcondor-startd-cron \
	  $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 scripts/brokers/gridway-job.jt etc/prometheus/gridtail-rules.yml \
	  $(DESTDIR)$(DOCDIR)/examples/
	$(SUBST) scripts/brokers/htcondor-gridtail.config > $(DESTDIR)$(DOCDIR)/examples/htcondor-gridtail.config
	install -m 644 docs/gridtail.1 docs/gridtail-cron.1 $(DESTDIR)$(MANDIR)/
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	find $(DOC_TREES) -type d -exec install -d $(DESTDIR)$(DOCDIR)/{} ';'
	find $(DOC_TREES) -type f -exec install -m 644 {} $(DESTDIR)$(DOCDIR)/{} ';'
	$(SUBST) etc/cron.d/gridtail > $(DESTDIR)$(DOCDIR)/examples/cron.d-gridtail
	$(SUBST) etc/gridtail.conf > $(DESTDIR)$(DOCDIR)/examples/gridtail.conf
	for u in $(UNITS); do $(SUBST) etc/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	for f in $(INGEST_EXAMPLES); do $(SUBST) etc/ingest/$$f > $(DESTDIR)$(DOCDIR)/examples/ingest/$$f || exit 1; done
	$(SUBST) etc/sysusers.d/gridtail.conf > $(DESTDIR)$(SYSUSERSDIR)/gridtail.conf
	$(SUBST) etc/tmpfiles.d/gridtail.conf > $(DESTDIR)$(TMPFILESDIR)/gridtail.conf
	chmod 644 $(DESTDIR)$(DOCDIR)/examples/*.* $(DESTDIR)$(DOCDIR)/examples/cron.d-gridtail \
	  $(DESTDIR)$(DOCDIR)/examples/ingest/* $(UNITS:%=$(DESTDIR)$(UNITDIR)/%) \
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
	  $(DESTDIR)$(MANDIR)/gridtail.1 $(DESTDIR)$(MANDIR)/gridtail-cron.1 \
	  $(UNITS:%=$(DESTDIR)$(UNITDIR)/%) \
	  $(DESTDIR)$(SYSUSERSDIR)/gridtail.conf $(DESTDIR)$(TMPFILESDIR)/gridtail.conf \
	  $(DESTDIR)$(SYSCONFDIR)/gridtail/gridtail.conf.dist
	rm -rf $(DESTDIR)$(DOCDIR)

# The Debian package, built by debhelper from debian/ in a copy of the
# tree under $(BUILD)/deb, then put here and checked by lintian
# (scripts/deb.sh; docs/OPERATIONS.md, "The Debian package").
deb:
	@sh scripts/install-deps.sh deb
	@BUILD=$(BUILD) sh scripts/deb.sh

clean:
	rm -rf build build-asan build-fuzz gridtail gridtail_*.deb

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
