build-clang/tests/test_sliding: tests/unit/test_sliding.c \
  tests/unit/testutil.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h db/db.h db/ingest.h db/store.h \
  estimators/fit.h estimators/model.h estimators/sliding.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:

estimators/fit.h:

estimators/model.h:

estimators/sliding.h:
