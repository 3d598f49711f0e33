build-clang/tests/test_server: tests/unit/test_server.c \
  tests/unit/testutil.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h db/db.h db/ingest.h db/store.h \
  src/advisor/advisor.h estimators/emax.h estimators/model.h \
  estimators/fit.h estimators/companion/loggps.h \
  estimators/companion/topology.h estimators/companion/flowsim.h \
  src/server/server.h src/base/config.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:

src/advisor/advisor.h:

estimators/emax.h:

estimators/model.h:

estimators/fit.h:

estimators/companion/loggps.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:

src/server/server.h:

src/base/config.h:
