build-clang/tests/test_models: tests/unit/test_models.c \
  tests/unit/testutil.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h db/db.h db/ingest.h db/store.h \
  estimators/companion/extrap.h estimators/companion/loggps.h \
  estimators/companion/neighbor.h estimators/companion/topology.h \
  estimators/companion/flowsim.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:

estimators/companion/extrap.h:

estimators/companion/loggps.h:

estimators/companion/neighbor.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:
