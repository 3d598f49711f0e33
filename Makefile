# gridtail - build, test, demo, benchmarks.
#
#   make            build ./gridtail (installs Debian packages if missing)
#   make check      build and run every test; ends with "N passed, N failed"
#   make demo       fresh database from the bundled Seattle data, pair summary
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
PKGS := sqlite3 libcurl gsl jansson libmicrohttpd libarchive
TEST_PKGS := cmocka

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lm -pthread
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS))
TEST_LIBS = $(shell pkg-config --libs $(TEST_PKGS))
ALL_CFLAGS = $(WARN) $(CFLAGS) $(PKG_CFLAGS) -pthread -MMD -MP

LIB_SRC := \
	src/error.c src/util.c src/config.c \
	src/advisor.c src/advice.c src/server.c src/pairfits.c src/prefault.c \
	src/cli.c src/cmd_ingest.c src/cmd_inspect.c src/cmd_admin.c src/cmd_estimate.c src/cmd_advise.c src/cmd_models.c src/cmd_serve.c \
	collectors/collectors.c collectors/http.c collectors/csvread.c \
	collectors/csvformat.c collectors/jsonin.c collectors/probe.c \
	collectors/amp_csv.c collectors/csv.c collectors/amp_json.c \
	collectors/esmond.c collectors/matrix.c \
	db/schema.c db/db.c db/store.c db/ingest.c db/query.c db/fitcache.c \
	estimators/models.c estimators/pareto.c estimators/normal.c estimators/delta.c \
	estimators/fit.c estimators/emax.c estimators/lcsum.c estimators/sliding.c \
	estimators/neighbor.c estimators/extrap.c estimators/loggps.c \
	estimators/flowsim.c estimators/topology.c

TESTS := test_util test_config test_csvread test_collectors test_db test_http test_fuzz test_fit test_emax test_sliding test_advisor test_models test_server test_probe

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libgridtail.a
BIN := $(BUILD)/gridtail
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

.PHONY: all deps build check check-run demo demo-run asan valgrind bench install \
	uninstall clean fuzz

all: deps
	@$(MAKE) --no-print-directory build

# Install the Debian packages when a library (or pkg-config) is missing.
deps:
	@command -v pkg-config >/dev/null 2>&1 && \
	  pkg-config --exists $(PKGS) $(TEST_PKGS) && command -v sqlite3 >/dev/null 2>&1 || \
	  sh scripts/install-deps.sh

build: $(BIN) gridtail

gridtail: $(BIN)
	ln -sf $(BIN) gridtail

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

# The E[max] kernels: vectorized calls into glibc's libmvec (see lcsum.c).
$(BUILD)/obj/estimators/lcsum.o: EXTRA_CFLAGS = -O3 -fno-math-errno -fno-trapping-math -fopenmp-simd

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/obj/src/main.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(PKG_LIBS) $(TEST_LIBS)

check: deps
	@$(MAKE) --no-print-directory check-run

check-run: $(BIN) $(TEST_BINS)
	@BUILD=$(BUILD) sh tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory build demo-run

demo-run:
	@sh scripts/demo.sh $(BIN)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" check-run

valgrind: deps
	@$(MAKE) --no-print-directory build $(TEST_BINS)
	@BUILD=$(BUILD) GT_VALGRIND=1 sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory build
	@sh scripts/bench/ingest.sh
	@sh scripts/bench/emax.sh
	@sh scripts/bench/fit.sh
	@sh scripts/bench/closed_form.sh
	@sh scripts/bench/advisor.sh
	@sh scripts/bench/simulate.sh
	@sh scripts/bench/serve.sh

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gridtail
	install -m 755 scripts/gridtail-cron $(DESTDIR)$(BINDIR)/gridtail-cron
	install -m 644 docs/gridtail.1 $(DESTDIR)$(MANDIR)/gridtail.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gridtail $(DESTDIR)$(BINDIR)/gridtail-cron \
	  $(DESTDIR)$(MANDIR)/gridtail.1

clean:
	rm -rf build build-asan gridtail

-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/src/main.d
