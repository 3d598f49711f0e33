build-clang/tests/test_advisor: tests/unit/test_advisor.c \
  tests/unit/testutil.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h db/db.h db/ingest.h db/store.h \
  src/advisor/advisor.h estimators/emax.h estimators/model.h \
  estimators/fit.h estimators/companion/loggps.h \
  estimators/companion/topology.h estimators/companion/flowsim.h \
  db/query.h db/fitcache.h src/advisor/pairfits.h

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

db/query.h:

db/fitcache.h:

src/advisor/pairfits.h:
