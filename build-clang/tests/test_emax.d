build-clang/tests/test_emax: tests/unit/test_emax.c tests/unit/testutil.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h db/db.h db/ingest.h db/store.h estimators/emax.h \
  estimators/model.h estimators/lcsum.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:

estimators/emax.h:

estimators/model.h:

estimators/lcsum.h:
